/**
 * A lease abandoned after a write with an unknown outcome must end by expiry, with the lock-delay
 * after it (docs/design.md, "Fencing around a write"). The lock object answers its holder asking
 * again as a re-acquire — the same token, the expiry extended — and a release after that would end
 * it plainly, with no lock-delay: so the holder never asks for that lock again while the lease
 * may be live ("Lease protocol"), neither by a plain acquire nor through the give-back of a lost
 * answer, which re-acquires and releases.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { LOCK_DELAY_MS } from "../../shared/lease-defaults";
import { type LockTarget, lockTarget } from "../../workers/locks/lock-target";
import { ScopeLease } from "../../workers/locks/scope-lock";
import { ManualClock } from "../helpers/clock";
import { overriding } from "../helpers/lock-overrides";
import { endLockDelay, expireLeaseNow, freshScopeKey, stub } from "../helpers/locks";

const TTL_MS = 30_000;

/** Every acquire reaches the object, then its answer is lost; every call counted. */
function answersLost(inner: LockTarget) {
  const calls = { acquire: 0, release: 0 };
  const target = overriding(inner, {
    acquire: async (req) => {
      calls.acquire += 1;
      await inner.acquire(req);
      throw new Error("Network connection lost.");
    },
    release: (req) => {
      calls.release += 1;
      return inner.release(req);
    },
  });
  return { target, calls };
}

async function abandoned(key: string, clock: ManualClock) {
  const lease = await ScopeLease.acquire(lockTarget(env, key), "run-a", { ttlMs: TTL_MS, clock });
  lease.abandon("a provider write under it has an unknown outcome");
  return lease;
}

describe("a lease its holder abandoned", () => {
  it("is not asked for again by that holder: refused before the object, the lease left to expire", async ({
    expect,
  }) => {
    const key = freshScopeKey("abandoned");
    const clock = new ManualClock();
    const lease = await abandoned(key, clock);
    const before = await stub(key).read({ key });

    await expect(
      ScopeLease.acquire(lockTarget(env, key), "run-a", { ttlMs: TTL_MS, clock }),
    ).rejects.toMatchObject({
      code: "LOCK_HELD",
      message: expect.stringContaining("abandoned its lease there"),
      // Nothing of this holder can be queued there (it held the lease): nobody took its changes.
      detail: { untaken: true },
    });
    const after = await stub(key).read({ key });
    // Neither re-acquired nor extended: it ends by its own expiry.
    expect(after).toMatchObject({
      held: true,
      holder: "run-a",
      token: lease.token,
      expiresAt: before.expiresAt,
    });
    expect(after.history.length).toBe(before.history.length);
  });

  it("a lost answer's give-back never reaches it: no re-acquire, no release", async ({ expect }) => {
    const key = freshScopeKey("abandoned-lost");
    const clock = new ManualClock();
    const lease = await abandoned(key, clock);
    const lost = answersLost(lockTarget(env, key));

    await expect(ScopeLease.acquire(lost.target, "run-a", { ttlMs: TTL_MS, clock })).rejects.toMatchObject({
      code: "LOCK_HELD",
    });
    expect(lost.calls).toEqual({ acquire: 0, release: 0 });
    expect(await stub(key).read({ key })).toMatchObject({ held: true, token: lease.token });
  });

  it("control: another holder is refused by the object itself; once the lease expired and its lock-delay passed, the holder may ask again", async ({
    expect,
  }) => {
    const key = freshScopeKey("abandoned-later");
    const clock = new ManualClock();
    const lease = await abandoned(key, clock);
    await expect(
      ScopeLease.acquire(lockTarget(env, key), "run-b", { ttlMs: TTL_MS, clock }),
    ).rejects.toMatchObject({
      code: "LOCK_HELD",
      message: expect.stringContaining("held by run-a"),
    });

    await expireLeaseNow(key);
    await endLockDelay(key);
    clock.advance(TTL_MS + LOCK_DELAY_MS);
    const again = await ScopeLease.acquire(lockTarget(env, key), "run-a", { ttlMs: TTL_MS, clock });
    expect(again.token).toBeGreaterThan(lease.token);
    await again.release();
  });
});
