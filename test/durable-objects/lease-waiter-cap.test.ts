/**
 * A repository's share of one lock's queue (docs/security.md, "Fair use"): at most
 * MAX_WAITERS_PER_REPOSITORY of its runs wait at one lock. The last one under the cap is queued;
 * the next is refused at once RATE_LIMITED rule `lock.waiters-per-repository`, never queued. The
 * controls: another repository's run, a run without an origin, and the same run asking again all
 * still queue or keep their place.
 */
import { describe, it } from "vitest";
import { MAX_WAITERS_PER_REPOSITORY } from "../../durable-objects/lease-rules";
import type { RunOrigin } from "../../shared/schemas/provenance";
import { freshScopeKey, granted, refused, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const WAIT_MS = 20_000;
const hex = () => crypto.randomUUID().slice(0, 8);

function origin(repositoryId: number, repository: string): RunOrigin {
  return {
    repositoryId,
    repository,
    scope: "preview/pr-1",
    provenance: {
      repository,
      event: null,
      ref: null,
      pullRequest: null,
      headBranch: null,
      sha: null,
      actor: null,
      workflow: null,
      runUrl: null,
      declared: true,
    },
  };
}
const FOREIGN = origin(5252, "acme/other");
const OWNING = origin(186853002, "Codertocat/Hello-World");

describe("one repository's waiters at one lock", () => {
  it(`waiter number ${MAX_WAITERS_PER_REPOSITORY} is queued, the next refused RATE_LIMITED at once; other askers still queue`, async ({
    expect,
  }) => {
    const key = `_locks/${crypto.randomUUID().replaceAll("-", "")}`;
    const lock = stub(key);
    granted(await lock.acquire({ key, holder: `run-holder-${hex()}`, ttlMs: TTL_MS, origin: OWNING }));
    const ask = (holder: string, from?: RunOrigin) =>
      lock.acquire({
        key,
        holder,
        ttlMs: TTL_MS,
        wait: true,
        waitTimeoutMs: WAIT_MS,
        ...(from ? { origin: from } : {}),
      });
    const first = `run-foreign-${hex()}`;
    void ask(first, FOREIGN);
    for (let i = 1; i < MAX_WAITERS_PER_REPOSITORY; i++) void ask(`run-foreign-${hex()}`, FOREIGN);
    expect((await lock.read({ key })).waiters).toHaveLength(MAX_WAITERS_PER_REPOSITORY);

    const error = refused(await ask(`run-foreign-${hex()}`, FOREIGN));
    expect(error).toMatchObject({
      code: "RATE_LIMITED",
      detail: { rule: "lock.waiters-per-repository", lock: key, limit: MAX_WAITERS_PER_REPOSITORY },
    });
    expect(error.message).toContain("acme/other");
    expect((await lock.read({ key })).waiters).toHaveLength(MAX_WAITERS_PER_REPOSITORY);

    // Controls: another repository's run and a run that names no repository queue; the first
    // waiter asking again keeps its place.
    void ask(`run-owning-${hex()}`, OWNING);
    void ask(`run-sweep-${hex()}`);
    void ask(first, FOREIGN);
    const waiters = (await lock.read({ key })).waiters;
    expect(waiters).toHaveLength(MAX_WAITERS_PER_REPOSITORY + 2);
    expect(waiters[0]?.holder).toBe(first);
  });

  it("a scope lock's queue is one repository's: its cap is the same number", async ({ expect }) => {
    const key = freshScopeKey("wcap");
    const lock = stub(key);
    granted(await lock.acquire({ key, holder: `run-holder-${hex()}`, ttlMs: TTL_MS, origin: FOREIGN }));
    for (let i = 0; i < MAX_WAITERS_PER_REPOSITORY; i++)
      void lock.acquire({
        key,
        holder: `run-${hex()}`,
        ttlMs: TTL_MS,
        wait: true,
        waitTimeoutMs: WAIT_MS,
        origin: FOREIGN,
      });
    const error = refused(
      await lock.acquire({
        key,
        holder: `run-${hex()}`,
        ttlMs: TTL_MS,
        wait: true,
        waitTimeoutMs: WAIT_MS,
        origin: FOREIGN,
      }),
    );
    expect(error.code).toBe("RATE_LIMITED");
  });
});
