/**
 * Lock answers name their holder as a person would (docs/design.md, "Lock answers"): the run's
 * origin is kept with its lease and its place in the queue, LOCK_HELD carries it as `detail.holder`
 * with the caller's `position` when it queued, and another repository's run is never described.
 */
import { describe, it } from "vitest";
import type { RunOrigin } from "../../shared/schemas/provenance";
import { freshScopeKey, granted, refused, stub } from "../helpers/locks";

const TTL_MS = 30_000;

function origin(repositoryId: number, pullRequest: number, actor: string): RunOrigin {
  return {
    repositoryId,
    repository: repositoryId === 186853002 ? "Codertocat/Hello-World" : "acme/other",
    scope: `preview/pr-${pullRequest}`,
    provenance: {
      repository: null,
      event: "pull_request",
      ref: `refs/pull/${pullRequest}/merge`,
      pullRequest,
      headBranch: "feat-x",
      sha: "a".repeat(40),
      actor,
      workflow: "preview",
      runUrl: `https://github.com/Codertocat/Hello-World/actions/runs/77/attempts/1`,
      declared: false,
    },
  };
}

const parentKey = () => `_locks/${crypto.randomUUID().replaceAll("-", "")}`;

describe("a lock answer names its holder", () => {
  it("LOCK_HELD carries the holding run's pull request, actor, CI run, since and until, and what to do", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    const lock = stub(key);
    const a = granted(
      await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS, origin: origin(186853002, 9, "octocat") }),
    );
    const error = refused(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(error.code).toBe("LOCK_HELD");
    expect(error.detail).toEqual({
      lock: key,
      holder: {
        run: "run-a",
        repository: "Codertocat/Hello-World",
        scope: "preview/pr-9",
        pullRequest: 9,
        actor: "octocat",
        runUrl: "https://github.com/Codertocat/Hello-World/actions/runs/77/attempts/1",
        declared: false,
        since: a.acquiredAt,
        expiresAt: a.expiresAt,
      },
    });
    expect(error.message).toContain("held by pull #9 (octocat)");
    expect(error.message).toContain(`since ${new Date(a.acquiredAt).toISOString()}`);
    expect(error.message).toContain(`until ${new Date(a.expiresAt).toISOString()}`);
    expect(error.message).toContain("`--wait`");
    expect(error.message).toContain(`\`sponson unlock ${key} --reason …\``);
  });

  it("a waiter whose wait ends is told its position; the lock's state lists waiters with theirs", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    const lock = stub(key);
    granted(
      await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS, origin: origin(186853002, 9, "octocat") }),
    );
    const b = lock.acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: 60_000,
      origin: origin(186853002, 10, "hubot"),
    });
    // 20 ms is the object's own wait timer, not a sleep in the test.
    const c = lock.acquire({ key, holder: "run-c", ttlMs: TTL_MS, wait: true, waitTimeoutMs: 20 });
    const state = await lock.read({ key });
    expect(state.heldBy).toMatchObject({ run: "run-a", pullRequest: 9, actor: "octocat" });
    expect(state.waiters[0]).toMatchObject({
      holder: "run-b",
      position: 1,
      by: { run: "run-b", pullRequest: 10, actor: "hubot", scope: "preview/pr-10" },
    });
    expect(state.waiters[1]).toMatchObject({ holder: "run-c", position: 2 });
    const error = refused(await c);
    expect(error.detail).toMatchObject({ position: 2, holder: { run: "run-a", pullRequest: 9 } });
    void b;
  });

  it("on a parent lock, a run of another repository is told only that another repository's run holds it", async ({
    expect,
  }) => {
    const key = parentKey();
    const lock = stub(key);
    granted(
      await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS, origin: origin(186853002, 9, "octocat") }),
    );
    const other = refused(
      await lock.acquire({ key, holder: "run-x", ttlMs: TTL_MS, origin: origin(42, 3, "mallory") }),
    );
    expect(other.detail?.holder).toMatchObject({
      run: "(another repository's run)",
      repository: null,
      scope: null,
      pullRequest: null,
      actor: null,
      runUrl: null,
    });
    expect(other.message).not.toContain("run-a");
    expect(other.message).not.toContain("octocat");
    // Control: a run of the same repository is told who it is.
    const same = refused(
      await lock.acquire({ key, holder: "run-y", ttlMs: TTL_MS, origin: origin(186853002, 4, "hubot") }),
    );
    expect(same.detail?.holder).toMatchObject({ run: "run-a", actor: "octocat" });
  });
});
