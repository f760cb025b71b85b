/**
 * An evicting write whose outcome is unknown (docs/design.md, "Evicting stale scopes"; "Lease
 * protocol"): the stale scope's lease is abandoned, never released (the parent's, still held, ends
 * by a quiet release), so it ends by expiry and the lock-delay after it. Its reopened PR's run cannot start before then, and a
 * late landing of the removal cannot take an entry that run has just reported in place.
 */
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../../shared/lock-keys";
import { appLockKey, freshPr } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  destroyRequest,
  evictingEngine,
  origin,
  scopeLockFree,
  setPullRequest,
} from "../../helpers/eviction";
import { endLockDelay, expireLeaseJustNow, expireLeaseNow } from "../../helpers/locks";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

interface Held {
  input: RequestInfo | URL;
  init: RequestInit | undefined;
  inner: typeof fetch;
}

/** Two scopes on a client capped at 2, the first one's PR closed: the next run must evict it. */
async function closedAndLive(name: string) {
  const capped = await cappedOrigins(name, 2);
  const [closed, live, next] = [freshPr(), freshPr(), freshPr()];
  for (const s of [closed, live])
    expect((await evictingEngine().apply(applyRequest(capped.plan, s))).run.status).toBe("succeeded");
  await setPullRequest(closed, "closed");
  return { ...capped, closed, live, next };
}

describe("an evicting write with an unknown outcome", () => {
  it("a network error on the write: the closed scope's lease is abandoned, its reopened run is refused LOCK_HELD until expiry and lock-delay, and the late landing cannot undo that run", async () => {
    const { domain, plan, origins, closed, live, next } = await closedAndLive("ev-unknown");
    let held: Held | null = null;
    const wrapFetch =
      (inner: typeof fetch): typeof fetch =>
      async (input, init) => {
        if (init?.method === "PATCH") {
          held ??= { input, init, inner };
          throw new TypeError("test: network connection lost");
        }
        return inner(input, init);
      };
    const result = await evictingEngine({ wrapFetch }).apply(applyRequest(plan, next));
    expect(result.run.error).toMatchObject({ code: "LOCK_LOST", detail: { outcome: "unknown" } });
    // Abandoned, not released: the lock stays taken until its expiry and the lock-delay after it.
    expect(await scopeLockFree(closed)).toBe(false);
    await setPullRequest(closed, "open");
    await expect(
      evictingEngine().apply({ ...applyRequest(plan, closed), wait: false }),
    ).rejects.toMatchObject({
      code: "LOCK_HELD",
    });
    // Expired just now: the lock-delay still keeps the scope's run out.
    const closedKey = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", closed);
    await expireLeaseJustNow(closedKey);
    await expect(
      evictingEngine().apply({ ...applyRequest(plan, closed), wait: false }),
    ).rejects.toMatchObject({
      code: "LOCK_HELD",
    });
    // The removal lands late, inside the lock-delay.
    const late = held as Held | null;
    if (!late) throw new Error("no PATCH was sent");
    expect((await late.inner(late.input, late.init)).ok).toBe(true);
    expect(await origins()).not.toContain(origin(closed));
    // Expiry and lock-delay past (the parent's quiet period too): the scope's own run finds its
    // entry gone and creates it again, once the live scope has made room.
    await expireLeaseNow(closedKey);
    await endLockDelay(await appLockKey(domain));
    expect((await evictingEngine().destroy(destroyRequest(live))).run.status).toBe("succeeded");
    const own = await evictingEngine().apply({ ...applyRequest(plan, closed), wait: false });
    expect(own.run.status).toBe("succeeded");
    expect(await origins()).toContain(origin(closed));
  });

  it("control: the same evicting write answered: the closed scope's lease is released at once", async () => {
    const { plan, origins, closed, live, next } = await closedAndLive("ev-unknown-ctl");
    const result = await evictingEngine().apply(applyRequest(plan, next));
    expect(result.run.status).toBe("succeeded");
    expect([...(await origins())].sort()).toEqual([origin(live), origin(next)].sort());
    expect(await scopeLockFree(closed)).toBe(true);
  });
});
