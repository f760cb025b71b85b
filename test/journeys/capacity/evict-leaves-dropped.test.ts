/**
 * The parent's check after an evicting write whose leaves are all dropped (docs/design.md, "One
 * group write, one fence"; "Fencing around a write"; "Evicting stale scopes"). The leaves (a
 * token-checked call after the write) stand for the parent's check after it; when each belongs to
 * an evicted scope whose lease was lost meanwhile, none is sent, and the check must still be made:
 * a parent lock lost while the write was in flight makes its outcome unknown, never "succeeded".
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { scopeLockKey } from "../../../shared/lock-keys";
import { lockStub } from "../../../workers/locks/lock-target";
import { appLockKey, freshPr } from "../../helpers/engine";
import { applyRequest, cappedOrigins, evictingEngine, origin, setPullRequest } from "../../helpers/eviction";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

afterEach(() => vi.restoreAllMocks());

/**
 * A client capped at one origin held by a closed scope; the next run's only change is an add, so
 * its only leaves are the closed scope's. While its write is in flight the closed scope's lease is
 * force-released, and the parent lock too when `parentToo`.
 */
async function evictWhileLost(name: string, parentToo: boolean) {
  const { domain, plan, origins } = await cappedOrigins(name, 1);
  const [closed, next] = [freshPr(), freshPr()];
  expect((await evictingEngine().apply(applyRequest(plan, closed))).run.status).toBe("succeeded");
  await setPullRequest(closed, "closed");
  const parentKey = await appLockKey(domain);
  let released = false;
  const wrapFetch =
    (inner: typeof fetch): typeof fetch =>
    async (input, init) => {
      if (!released && init?.method === "PATCH") {
        released = true;
        const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", closed);
        await lockStub(env, key).forceRelease({ key, reason: "test: lost in flight", actor: "admin" });
        if (parentToo)
          await lockStub(env, parentKey).forceRelease({
            key: parentKey,
            reason: "test: lost in flight",
            actor: "admin",
          });
      }
      return inner(input, init);
    };
  // The dropped leave's warning is expected; kept off the test output.
  vi.spyOn(console, "warn").mockImplementation(() => undefined);
  const result = await evictingEngine({ wrapFetch }).apply(applyRequest(plan, next));
  expect(released).toBe(true);
  return { result, origins, closed, next };
}

describe("an evicting write whose every leave is dropped", () => {
  it("the parent lock force-released with the evicted scope's lease while the write is in flight: the outcome is unknown (LOCK_LOST), not succeeded", async () => {
    const { result, origins, closed, next } = await evictWhileLost("ev-drop", true);
    expect(result.run.status).not.toBe("succeeded");
    expect(result.run.error).toMatchObject({ code: "LOCK_LOST", detail: { outcome: "unknown" } });
    // The fence's answer, on the line: the lease was lost around the write, which may have landed.
    expect(result.lines).toMatchObject([
      { id: "origin", result: "failed", error: { code: "LOCK_LOST", detail: { outcome: "unknown" } } },
    ]);
    expect(result.lines[0]?.error?.message).toContain("so the write may have landed (outcome unknown)");
    // It did land here: the run cannot know, and says so instead of reporting it done.
    expect(await origins()).toEqual([origin(next)]);
    expect(await origins()).not.toContain(origin(closed));
  });

  it("control: only the evicted scope's lease lost in flight, the parent kept: the run succeeds", async () => {
    const { result, origins, next } = await evictWhileLost("ev-drop-ctl", false);
    expect(result.run.status).toBe("succeeded");
    expect(await origins()).toEqual([origin(next)]);
  });
});
