/**
 * Lock-delay (docs/design.md, "Lease protocol"): a lease that *expired* may still have a write in
 * flight, so nobody else is granted the lock until its lock-delay after the expiry has passed. A
 * release in time needs none. Time is moved by rewriting the lease's expiry (helpers/locks.ts).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, it } from "vitest";
import { type LeaseEnding, lockDelayOf, quietUntil } from "../../durable-objects/lease-rules";
import { LOCK_DELAY_MS, PROVIDER_REQUEST_TIMEOUT_MS } from "../../shared/lease-defaults";
import {
  armedAlarm,
  endLockDelay,
  expireLeaseJustNow,
  freshScopeKey,
  granted,
  rawStub,
  refused,
  stub,
} from "../helpers/locks";

const TTL_MS = 30_000;

describe("lock-delay", () => {
  it("is at least the provider request timeout; callers may only shorten it", ({ expect }) => {
    expect(LOCK_DELAY_MS).toBeGreaterThanOrEqual(PROVIDER_REQUEST_TIMEOUT_MS);
    expect(lockDelayOf(undefined)).toBe(LOCK_DELAY_MS);
    expect(lockDelayOf(LOCK_DELAY_MS * 10)).toBe(LOCK_DELAY_MS);
    expect(lockDelayOf(0)).toBe(0);
  });

  // The pure rule (lease-rules.ts quietUntil): a lease that ended at 5 000, its expiry at 1 000 or
  // 9 000, released quietly or not. Quiet after an expiry; after a quiet release, from the release.
  const ended = 5_000;
  const table: Array<
    [string, LeaseEnding["how"], { expiresAt: number; quiet?: boolean; pending?: boolean }, number]
  > = [
    ["an expiry", "expired", { expiresAt: 1_000 }, 1_000 + LOCK_DELAY_MS],
    ["a release after the expiry", "released-expired", { expiresAt: 1_000 }, 1_000 + LOCK_DELAY_MS],
    ["a release in time", "released", { expiresAt: 9_000 }, 0],
    ["a force-release", "force-released", { expiresAt: 9_000 }, 0],
    // An unclaimed grant's holder never claimed it, so never wrote.
    ["an unclaimed grant's expiry", "expired", { expiresAt: 1_000, pending: true }, 0],
    ["a quiet release in time", "released", { expiresAt: 9_000, quiet: true }, ended + LOCK_DELAY_MS],
    // Released after its expiry: the later of the two ends (here the release's).
    [
      "a quiet release after the expiry",
      "released-expired",
      { expiresAt: 1_000, quiet: true },
      ended + LOCK_DELAY_MS,
    ],
  ];
  for (const [what, how, { expiresAt, quiet, pending }, until] of table)
    it(`after ${what}: ${until === 0 ? "no quiet period" : `quiet until ${until}`}`, ({ expect }) => {
      const lease = {
        holder: "a",
        token: 1,
        acquiredAt: 0,
        expiresAt,
        ttlMs: 1_000,
        claimPending: pending === true,
      };
      expect(quietUntil(lease, { how, at: ended, ...(quiet ? { quiet } : {}) }, LOCK_DELAY_MS)).toBe(until);
    });

  it("a lease that just expired is not taken over: a newcomer is told LOCK_HELD", async ({ expect }) => {
    const key = freshScopeKey();
    const lock = stub(key);
    granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseJustNow(key);
    const error = refused(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(error.code).toBe("LOCK_HELD");
    // The old holder cannot renew either: its lease has expired.
    expect(refused(await lock.renew({ key, holder: "run-a", token: 1 })).code).toBe("LOCK_LOST");
    await endLockDelay(key);
    expect(granted(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS }))).toMatchObject({ token: 2 });
  });

  it("a waiter is granted only once the lock-delay has passed, by the alarm armed for its end", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseJustNow(key);
    const waiting = lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS, wait: true, waitTimeoutMs: 60_000 });
    expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-b"]);
    // The read ended the expired lease; the lock stays quiet and an alarm is armed for the end.
    const state = await lock.read({ key });
    expect(state.held).toBe(false);
    expect(state.history.map((h) => h.transition)).toEqual(["acquired", "expired"]);
    const alarm = await armedAlarm(key);
    expect(alarm).toBeGreaterThan(Date.now());
    expect(alarm).toBeLessThanOrEqual(Date.now() + LOCK_DELAY_MS);
    // An early alarm hands nothing over.
    await runDurableObjectAlarm(rawStub(key));
    expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-b"]);

    await endLockDelay(key);
    await runDurableObjectAlarm(rawStub(key));
    expect(granted(await waiting)).toMatchObject({ holder: "run-b", token: a.token + 1 });
  });

  it("a release in time hands the lock over at once (no lock-delay)", async ({ expect }) => {
    const key = freshScopeKey();
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS, wait: true, waitTimeoutMs: 60_000 });
    await lock.release({ key, holder: "run-a", token: a.token });
    expect(granted(await waiting)).toMatchObject({ holder: "run-b" });
  });

  it("a release after the expiry keeps the lock-delay", async ({ expect }) => {
    const key = freshScopeKey();
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseJustNow(key);
    await lock.release({ key, holder: "run-a", token: a.token });
    expect(refused(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS })).code).toBe("LOCK_HELD");
  });
});
