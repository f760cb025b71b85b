/**
 * The client side of a lease (docs/design.md, "Lease protocol") under a ManualClock: renewal every TTL/3, the
 * holder's own deadline, LOCK_LOST before the server could hand the lock on, release retried with backoff.
 * The LockTarget is the real object where it can be, wrapped to count calls or to fail on purpose.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { ok, SponsonError } from "../../shared/errors";
import { parentLockKey } from "../../shared/lock-keys";
import { SecretRegistry } from "../../shared/secrets";
import { REJOIN_ATTEMPTS } from "../../workers/locks/acquire-loop";
import { type LockTarget, lockTarget } from "../../workers/locks/lock-target";
import { ScopeLease } from "../../workers/locks/scope-lock";
import { ManualClock } from "../helpers/clock";
import { overriding } from "../helpers/lock-overrides";
import { expireLeaseNow, freshScopeKey, granted, rawStub, stub, withState } from "../helpers/locks";

const TTL_MS = 30_000;
const MARGIN_MS = 3_000;

/** What a test scripts on a target: call counts, replacements for any of four calls, and a wait for in-flight ones. */
interface Script {
  readonly calls: { acquire: number; claim: number; renew: number; release: number };
  acquireWith: LockTarget["acquire"] | null;
  claimWith: LockTarget["claim"] | null;
  renewWith: LockTarget["renew"] | null;
  releaseWith: LockTarget["release"] | null;
  /** Resolves when no call is in flight and the lease has reacted to the last answer. */
  idle(): Promise<void>;
}

type ScriptedTarget = LockTarget & Script;

/** Wraps a target: counts calls, lets a test replace any of them, and waits for in-flight ones. */
function scripted(inner: LockTarget): ScriptedTarget {
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(call: Promise<T>): Promise<T> => {
    inFlight.add(call);
    void call.finally(() => inFlight.delete(call)).catch(() => {});
    return call;
  };
  const script: Script = {
    calls: { acquire: 0, claim: 0, renew: 0, release: 0 },
    acquireWith: null,
    claimWith: null,
    renewWith: null,
    releaseWith: null,
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      // The lease's own continuation (.then/.finally) runs a few microtasks after the answer.
      for (let i = 0; i < 10; i++) await Promise.resolve();
    },
  };
  const target = overriding(inner, {
    acquire: (req) => {
      script.calls.acquire += 1;
      return track((script.acquireWith ?? inner.acquire)(req));
    },
    claim: (req) => {
      script.calls.claim += 1;
      return track((script.claimWith ?? inner.claim)(req));
    },
    renew: (req) => {
      script.calls.renew += 1;
      return track((script.renewWith ?? inner.renew)(req));
    },
    release: (req) => {
      script.calls.release += 1;
      return track((script.releaseWith ?? inner.release)(req));
    },
  });
  // Every other call goes to the real object, whatever the interface declares.
  return withState(target, script);
}

const networkDown = () => Promise.reject(new Error("network down"));

function realTarget(key = freshScopeKey("client"), identity: string | null = null): ScriptedTarget {
  return scripted(lockTarget(env, key, identity));
}

function caught(fn: () => void): SponsonError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SponsonError) return err;
    throw err;
  }
  throw new Error("expected a SponsonError");
}

describe("the client lease", () => {
  it("renews every TTL/3 and moves its deadline with each renewal", async ({ expect }) => {
    const clock = new ManualClock();
    const start = clock.now();
    const target = realTarget();
    const lease = await ScopeLease.acquire(target, "run-a", {
      ttlMs: TTL_MS,
      safetyMarginMs: MARGIN_MS,
      clock,
    });
    expect(lease.deadline).toBe(start + TTL_MS - MARGIN_MS);
    expect(clock.pending).toEqual([start + TTL_MS / 3]);

    clock.advance(TTL_MS / 3 - 1);
    expect(target.calls.renew).toBe(0);
    for (let n = 1; n <= 3; n++) {
      clock.advance(n === 1 ? 1 : TTL_MS / 3);
      expect(target.calls.renew).toBe(n);
      await clock.untilTimer();
      const renewedAt = start + (n * TTL_MS) / 3;
      expect(lease.deadline).toBe(renewedAt + TTL_MS - MARGIN_MS);
      expect(clock.pending).toEqual([renewedAt + TTL_MS / 3]);
    }
    await lease.release();
    expect(clock.pending).toEqual([]);
  });

  it("the deadline is measured before the acquire call, not after its answer", async ({ expect }) => {
    const clock = new ManualClock();
    const start = clock.now();
    const target = realTarget();
    target.acquireWith = async ({ holder }) => {
      clock.advance(2_000); // the call itself took two seconds
      return ok({
        key: target.key,
        holder,
        token: 7,
        acquiredAt: clock.now(),
        expiresAt: clock.now() + TTL_MS,
      });
    };
    const lease = await ScopeLease.acquire(target, "run-a", {
      ttlMs: TTL_MS,
      safetyMarginMs: MARGIN_MS,
      clock,
    });
    expect(lease.deadline).toBe(start + TTL_MS - MARGIN_MS);
    expect(lease.deadline).toBeLessThan(lease.expiresAt - MARGIN_MS);
    expect(target.calls.renew).toBe(0);
  });

  it("after a wait longer than TTL/3 its claim of the grant gives a fresh deadline", async ({ expect }) => {
    const clock = new ManualClock();
    const start = clock.now();
    const target = realTarget();
    const key = target.key;
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    target.acquireWith = async (req) => {
      // The real object grants when run-a lets go; the client clock says that took 15 s.
      const answer = lockTarget(env, key).acquire(req);
      await stub(key).release({ key, holder: "run-a", token: a.token });
      clock.advance(15_000);
      return answer;
    };
    const lease = await ScopeLease.acquire(target, "run-b", {
      ttlMs: TTL_MS,
      safetyMarginMs: MARGIN_MS,
      wait: true,
      clock,
    });
    // The grant came to a waiter, so the client claimed it at once: measured before that call.
    expect(target.calls.claim).toBe(1);
    expect(target.calls.renew).toBe(0);
    expect(lease.deadline).toBe(start + 15_000 + TTL_MS - MARGIN_MS);
    await lease.release();
  });

  it("reaching the deadline with every renewal failing raises LOCK_LOST before the server expiry", async ({
    expect,
  }) => {
    const identity = "auth0:tenant-1:client:abc123";
    const key = await parentLockKey(identity, new SecretRegistry());
    const clock = new ManualClock();
    const target = realTarget(key, identity);
    const lease = await ScopeLease.acquire(target, "run-a", {
      ttlMs: TTL_MS,
      safetyMarginMs: MARGIN_MS,
      clock,
    });
    target.renewWith = networkDown;

    clock.advance(TTL_MS / 3);
    await clock.untilTimer();
    clock.advance(TTL_MS / 3);
    await clock.untilTimer();
    expect(target.calls.renew).toBe(2);
    clock.advance(lease.deadline - clock.now() - 1);
    expect(() => lease.assertHeld()).not.toThrow();

    clock.advance(1);
    const lost = caught(() => lease.assertHeld());
    expect(lost.code).toBe("LOCK_LOST");
    expect(lost.detail).toEqual({ lock: key, parent: identity });
    // The holder stopped before the server could hand the lock on: it is still run-a's there.
    expect(clock.now()).toBeLessThan(lease.expiresAt);
    expect(await stub(key).read({ key })).toMatchObject({ held: true, holder: "run-a" });
    expect(clock.pending).toEqual([]);
  });

  it("a renewal the object refuses makes the lease LOCK_LOST and stops renewing", async ({ expect }) => {
    const clock = new ManualClock();
    const target = realTarget();
    const key = target.key;
    const lease = await ScopeLease.acquire(target, "run-a", {
      ttlMs: TTL_MS,
      safetyMarginMs: MARGIN_MS,
      clock,
    });
    granted(await stub(key).forceRelease({ key, reason: "test", actor: "admin" }));
    granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));

    clock.advance(TTL_MS / 3);
    await target.idle();

    expect(target.calls.renew).toBe(1);
    const lost = caught(() => lease.assertHeld());
    expect(lost).toMatchObject({ code: "LOCK_LOST", detail: { lock: key, parent: null } });
    expect(clock.pending).toEqual([]);
  });

  it("check() before a write renews, and fails with LOCK_LOST once another holder took over", async ({
    expect,
  }) => {
    const clock = new ManualClock();
    const start = clock.now();
    const target = realTarget();
    const key = target.key;
    const lease = await ScopeLease.acquire(target, "run-a", {
      ttlMs: TTL_MS,
      safetyMarginMs: MARGIN_MS,
      clock,
    });
    clock.advance(5_000);

    await lease.check();
    expect(target.calls.renew).toBe(1);
    expect(lease.deadline).toBe(start + 5_000 + TTL_MS - MARGIN_MS);

    granted(await stub(key).forceRelease({ key, reason: "test", actor: "admin" }));
    granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    await expect(lease.check()).rejects.toMatchObject({ code: "LOCK_LOST" });
  });

  it("release is retried with backoff and warns with the key and until when it stays held", async ({
    expect,
  }) => {
    const identity = "okta:org-1:app:0oa1";
    const key = await parentLockKey(identity, new SecretRegistry());
    const clock = new ManualClock();
    const target = realTarget(key, identity);
    const warnings: string[] = [];
    const lease = await ScopeLease.acquire(target, "run-a", {
      ttlMs: TTL_MS,
      clock,
      onWarning: (m) => warnings.push(m),
    });
    target.releaseWith = networkDown;

    const releasing = lease.release();
    for (const backoffMs of [100, 200, 400, 800]) {
      await clock.untilTimer();
      expect(clock.pending).toEqual([clock.now() + backoffMs]);
      clock.advance(backoffMs);
    }
    await releasing;

    expect(target.calls.release).toBe(5);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(key);
    expect(warnings[0]).toContain(identity);
    expect(warnings[0]).toContain(`until ${new Date(lease.expiresAt).toISOString()}`);
    expect(await stub(key).read({ key })).toMatchObject({ held: true, holder: "run-a" });
  });

  it("a release that fails twice and then gets through frees the lock without a warning", async ({
    expect,
  }) => {
    const clock = new ManualClock();
    const target = realTarget();
    const key = target.key;
    const warnings: string[] = [];
    const lease = await ScopeLease.acquire(target, "run-a", {
      ttlMs: TTL_MS,
      clock,
      onWarning: (m) => warnings.push(m),
    });
    const real = lockTarget(env, key);
    let failures = 2;
    target.releaseWith = (req) => (failures-- > 0 ? networkDown() : real.release(req));

    const releasing = lease.release();
    for (const backoffMs of [100, 200]) {
      await clock.untilTimer();
      clock.advance(backoffMs);
    }
    await releasing;

    expect(target.calls.release).toBe(3);
    expect(warnings).toEqual([]);
    expect((await stub(key).read({ key })).held).toBe(false);
  });

  describe("waiting", () => {
    /** Reads the object until `holder` is queued; each read is a round trip, not a timer. */
    async function untilQueued(key: string, holder: string): Promise<void> {
      for (let i = 0; i < 2_000; i++) {
        if ((await stub(key).read({ key })).waiters.some((w) => w.holder === holder)) return;
      }
      throw new Error(`${holder} never queued on ${key}`);
    }

    it("a grant after waiting is claimed at once and then runs for the TTL", async ({ expect }) => {
      const target = realTarget();
      const key = target.key;
      const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
      const pending = ScopeLease.acquire(target, "run-b", {
        ttlMs: TTL_MS,
        wait: true,
        waitTimeoutMs: 60_000,
      });
      await untilQueued(key, "run-b");
      const before = Date.now();
      await stub(key).release({ key, holder: "run-a", token: a.token });
      const lease = await pending;
      expect(target.calls.claim).toBe(1);
      expect(lease.expiresAt).toBeGreaterThanOrEqual(before + TTL_MS);
      const state = await stub(key).read({ key });
      expect(state.history.map((h) => [h.transition, h.holder])).toContainEqual(["claimed", "run-b"]);
      expect(state.history.some((h) => h.transition === "claim-lapsed")).toBe(false);
      await lease.release();
    });

    it("a claim that comes too late re-joins and takes the lock afresh", async ({ expect }) => {
      const target = realTarget();
      const key = target.key;
      const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
      target.claimWith = async (req) => {
        target.claimWith = null;
        // The claim window passes before the claim arrives (rewritten, not slept).
        await expireLeaseNow(key);
        await runDurableObjectAlarm(rawStub(key));
        return lockTarget(env, key).claim(req);
      };
      const pending = ScopeLease.acquire(target, "run-b", {
        ttlMs: TTL_MS,
        wait: true,
        waitTimeoutMs: 60_000,
      });
      await untilQueued(key, "run-b");
      await stub(key).release({ key, holder: "run-a", token: a.token });
      const lease = await pending;
      expect(target.calls.acquire).toBe(2);
      expect(lease.token).toBe(a.token + 2);
      const history = (await stub(key).read({ key })).history.map((h) => [h.transition, h.holder, h.token]);
      expect(history).toContainEqual(["claim-lapsed", "run-b", a.token + 1]);
      expect(history.at(-1)).toEqual(["acquired", "run-b", a.token + 2]);
      await lease.release();
    });

    it("an object restart while waiting makes the client re-join with the same holder, not fail", async ({
      expect,
    }) => {
      const target = realTarget();
      const key = target.key;
      const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
      const failures: unknown[] = [];
      target.acquireWith = (...args) =>
        lockTarget(env, key)
          .acquire(...args)
          .catch((err: unknown) => {
            failures.push(err);
            throw err;
          });
      const pending = ScopeLease.acquire(target, "run-b", {
        ttlMs: TTL_MS,
        wait: true,
        waitTimeoutMs: 60_000,
      });
      await untilQueued(key, "run-b");

      // A real reset of the object (what a deploy does): in-memory waiters are gone, open calls fail.
      const aborted = await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
        state.abort("deploy");
      }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(aborted).toMatchObject({ durableObjectReset: true });
      await untilQueued(key, "run-b");
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ durableObjectReset: true });

      // The held lease survived the restart (it is in SQLite); its release hands over to run-b.
      await stub(key).release({ key, holder: "run-a", token: a.token });
      const lease = await pending;
      expect(target.calls.acquire).toBe(2);
      expect(lease.token).toBe(a.token + 1);
      expect(await stub(key).read({ key })).toMatchObject({
        held: true,
        holder: "run-b",
        token: lease.token,
      });
      await lease.release();
    });

    it("an object that keeps resetting ends in LOCK_HELD after bounded re-joins; other errors are not retried", async ({
      expect,
    }) => {
      const target = realTarget();
      const reset = () => Promise.reject(Object.assign(new Error("reset"), { durableObjectReset: true }));
      target.acquireWith = reset;
      const error = await ScopeLease.acquire(target, "run-b", {
        ttlMs: TTL_MS,
        wait: true,
        waitTimeoutMs: 60_000,
      }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(SponsonError);
      expect(error).toMatchObject({ code: "LOCK_HELD" });
      // Plus one ask without waiting to give back what the lost last answer may have granted.
      expect(target.calls.acquire).toBe(REJOIN_ATTEMPTS + 1);

      // Control: an error that is not a reset (a bug, a refused call) is not retried or disguised.
      const other = realTarget();
      other.acquireWith = networkDown;
      const thrown = await ScopeLease.acquire(other, "run-c", {
        ttlMs: TTL_MS,
        wait: true,
        waitTimeoutMs: 60_000,
      }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(String(thrown)).toContain("network down");
      // Not retried: the one more ask is the give-back of a grant the lost answer may have carried.
      expect(other.calls.acquire).toBe(2);
    });
  });
});
