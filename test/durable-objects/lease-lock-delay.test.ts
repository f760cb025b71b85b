/**
 * Lock-delay (docs/design.md, "Lease protocol"): a lease that *expired* may still have a write in
 * flight, so nobody else is granted the lock until its lock-delay after the expiry has passed. A
 * release in time needs none. Time is moved by rewriting the lease's expiry (helpers/locks.ts).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, it } from "vitest";
import { lockDelayOf, quietUntil } from "../../durable-objects/lease-rules";
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
    const lease = {
      holder: "a",
      token: 1,
      acquiredAt: 0,
      expiresAt: 1_000,
      ttlMs: 1_000,
      claimPending: false,
    };
    expect(quietUntil(lease, "expired", LOCK_DELAY_MS)).toBe(1_000 + LOCK_DELAY_MS);
    expect(quietUntil(lease, "released-expired", LOCK_DELAY_MS)).toBe(1_000 + LOCK_DELAY_MS);
    expect(quietUntil(lease, "released", LOCK_DELAY_MS)).toBe(0);
    expect(quietUntil(lease, "force-released", LOCK_DELAY_MS)).toBe(0);
    // An unclaimed grant's holder never claimed it, so never wrote.
    expect(quietUntil({ ...lease, claimPending: true }, "expired", LOCK_DELAY_MS)).toBe(0);
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
