/**
 * The acquire loop's outcomes and the lease options (docs/design.md, "Lease protocol"): options are
 * checked when built, before any lock call; an overloaded object is asked again after a backoff
 * (it is not a reset: a caller that would not wait is not refused for it); re-joins back off,
 * bounded and jittered, through the options' clock and random, so these tests decide every delay.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { SponsonError } from "../../shared/errors";
import { DEFAULT_WAIT_TIMEOUT_MS } from "../../shared/lease-defaults";
import { REJOIN_ATTEMPTS, REJOIN_CAP_MS, rejoinDelayMs } from "../../workers/locks/acquire-loop";
import { type LeaseOptions, leaseOptions, RELEASE_ATTEMPTS } from "../../workers/locks/lease-options";
import { type LockTarget, lockTarget } from "../../workers/locks/lock-target";
import { ScopeLease } from "../../workers/locks/scope-lock";
import { ManualClock } from "../helpers/clock";
import { overriding } from "../helpers/lock-overrides";
import { freshScopeKey, stub } from "../helpers/locks";

const TTL_MS = 30_000;

/** A real lock whose first `failures` acquires throw `error`; counts every acquire. */
function failing(failures: number, error: () => Error) {
  const inner = lockTarget(env, freshScopeKey("loop"));
  const calls = { acquire: 0 };
  const target: LockTarget = overriding(inner, {
    acquire: (req) => {
      calls.acquire += 1;
      return calls.acquire <= failures ? Promise.reject(error()) : inner.acquire(req);
    },
  });
  return { target, calls };
}

const overloaded = () =>
  Object.assign(new Error("Durable Object is overloaded. Too many requests queued."), {
    overloaded: true,
    retryable: true,
  });
const reset = () => Object.assign(new Error("reset"), { durableObjectReset: true, retryable: true });

/**
 * Runs `acquire` under `clock`, recording the delay of every timer it waits on until it settles. A
 * waiting ask races its call against the wait deadline with a timer of its own, cleared once the
 * call fails; the test's own task waits a turn (a macrotask: every microtask done) so only the
 * timer the acquire is left waiting on is read.
 */
async function delaysOf(
  clock: ManualClock,
  acquire: Promise<unknown>,
): Promise<{ delays: number[]; result: unknown }> {
  let settled = false;
  const result = acquire.then(
    (v) => v,
    (e: unknown) => e,
  );
  void result.finally(() => {
    settled = true;
  });
  const delays: number[] = [];
  for (;;) {
    await Promise.race([result, clock.untilTimer()]);
    await scheduler.wait(0);
    if (settled) return { delays, result: await result };
    if (clock.pending.length === 0) continue;
    delays.push((clock.pending[0] as number) - clock.now());
    clock.advanceToNext();
  }
}

describe("lease options", () => {
  it("are refused when built, naming the rule, and an acquire with them makes no lock call", async ({
    expect,
  }) => {
    for (const bad of [
      { ttlMs: 0 },
      { ttlMs: -5 },
      { ttlMs: Number.NaN },
      { ttlMs: TTL_MS, safetyMarginMs: 20_000 },
    ]) {
      expect(() => leaseOptions(bad as LeaseOptions)).toThrow(SponsonError);
    }
    expect(() => leaseOptions({ ttlMs: 0 })).toThrow(/ttlMs/);
    expect(() => leaseOptions({ ttlMs: TTL_MS, releaseAttempts: 0 })).toThrow(/releaseAttempts/);
    expect(() => leaseOptions({ ttlMs: TTL_MS, maxHoldMs: 0 })).toThrow(/maxHoldMs/);
    const { target, calls } = failing(0, reset);
    const error = await ScopeLease.acquire(target, "run-a", { ttlMs: 0 }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toMatchObject({ code: "VALIDATION" });
    expect(calls.acquire).toBe(0);
    expect((await stub(target.key).read({ key: target.key })).history).toEqual([]);
  });

  it("fill in their documented defaults once", ({ expect }) => {
    const s = leaseOptions({ ttlMs: TTL_MS });
    expect(s).toMatchObject({
      ttlMs: TTL_MS,
      wait: false,
      waitTimeoutMs: DEFAULT_WAIT_TIMEOUT_MS,
      safetyMarginMs: TTL_MS / 10,
      releaseAttempts: RELEASE_ATTEMPTS,
    });
    expect(s.maxHoldMs).toBeUndefined();
    // Built settings pass through unchanged (the engine builds them, the acquire takes them).
    expect(leaseOptions(s)).toBe(s);
  });
});

describe("the acquire loop", () => {
  it("asks an overloaded object again after a backoff, even a caller that would not wait", async ({
    expect,
  }) => {
    const clock = new ManualClock();
    const { target, calls } = failing(2, overloaded);
    const { delays, result } = await delaysOf(
      clock,
      ScopeLease.acquire(target, "run-a", { ttlMs: TTL_MS, clock, random: () => 0 }),
    );
    expect(result).toBeInstanceOf(ScopeLease);
    expect(calls.acquire).toBe(3);
    // Half of each delay is jitter (random() = 0 here): the two backoffs, then the first renewal timer.
    expect(delays.slice(0, 2)).toEqual([rejoinDelayMs(1, () => 0), rejoinDelayMs(2, () => 0)]);
    expect(delays[0]).toBeGreaterThan(0);
    await (result as ScopeLease).release();

    // Control: a reset is not retried for a caller that would not wait; it gets the error at once.
    // Its answer is lost, though, so one more ask gives back what it may have been granted
    // (docs/design.md, "Lease protocol"): a grant made now, released at once.
    const other = failing(1, reset);
    const thrown = await ScopeLease.acquire(other.target, "run-b", { ttlMs: TTL_MS, clock }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(thrown).toMatchObject({ durableObjectReset: true });
    expect(other.calls.acquire).toBe(2);
    expect((await stub(other.target.key).read({ key: other.target.key })).held).toBe(false);
  });

  it("re-joins after resets with a bounded, jittered, growing backoff, then answers LOCK_HELD", async ({
    expect,
  }) => {
    for (const r of [0, 0.5, 0.999]) {
      const clock = new ManualClock();
      const { target, calls } = failing(Infinity, reset);
      const { delays, result } = await delaysOf(
        clock,
        ScopeLease.acquire(target, "run-a", {
          ttlMs: TTL_MS,
          wait: true,
          waitTimeoutMs: 60_000,
          clock,
          random: () => r,
        }),
      );
      expect(result).toMatchObject({ code: "LOCK_HELD" });
      // The last re-join's answer was lost too: one ask more to give back a grant (it fails as well).
      expect(calls.acquire).toBe(REJOIN_ATTEMPTS + 1);
      expect(delays).toEqual([1, 2, 3, 4].map((n) => rejoinDelayMs(n, () => r)));
      for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThan(delays[i - 1] as number);
    }
    // Bounded: however many re-joins, a delay never passes the cap, and never drops below half of it.
    expect(rejoinDelayMs(40, () => 0.999)).toBeLessThanOrEqual(REJOIN_CAP_MS);
    expect(rejoinDelayMs(40, () => 0)).toBe(REJOIN_CAP_MS / 2);
  });

  it("a re-join or overloaded backoff never sleeps past the wait deadline: the acquire ends there", async ({
    expect,
  }) => {
    // random() = 0: backoffs of 25, 50 and 100 ms; a budget of 120 ms cuts the third to 45.
    for (const [error, code] of [
      [reset, "LOCK_HELD"],
      [overloaded, "LOCK_UNAVAILABLE"],
    ] as const) {
      const clock = new ManualClock();
      const start = clock.now();
      const { target, calls } = failing(Infinity, error);
      const { delays, result } = await delaysOf(
        clock,
        ScopeLease.acquire(target, "run-a", {
          ttlMs: TTL_MS,
          wait: true,
          waitTimeoutMs: 120,
          clock,
          random: () => 0,
        }),
      );
      expect({ code: (result as SponsonError).code, delays }).toEqual({ code, delays: [25, 50, 45] });
      // A reset may have been granted unanswered: one ask more gives it back; an overload reached nothing.
      expect(calls.acquire).toBe(error === reset ? 4 : 3);
      expect(clock.now() - start).toBe(120);
    }
  });
});
