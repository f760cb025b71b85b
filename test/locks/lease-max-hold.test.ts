/**
 * A critical section has a maximum length (docs/design.md, "Lease protocol"): a lease taken with
 * `maxHoldMs` renews as usual until then, never moves its deadline past it, and stops renewing
 * there, so a provider call that hangs cannot keep an object's lock alive. ManualClock time.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { lockTarget } from "../../workers/locks/lock-target";
import { ScopeLease } from "../../workers/locks/scope-lock";
import { ManualClock } from "../helpers/clock";
import { freshScopeKey } from "../helpers/locks";

const TTL_MS = 30_000;
const MARGIN_MS = 3_000;
const MAX_HOLD_MS = 45_000;

async function settle(clock: ManualClock) {
  // The renewal answers over RPC; its continuation arms the next timer.
  await clock.untilTimer();
}

describe("a critical section's maximum length", () => {
  it("renewals stop at maxHoldMs: the deadline never passes it, and the lease is lost there", async ({
    expect,
  }) => {
    const clock = new ManualClock();
    const start = clock.now();
    const lease = await ScopeLease.acquire(lockTarget(env, freshScopeKey()), "run-a", {
      ttlMs: TTL_MS,
      safetyMarginMs: MARGIN_MS,
      clock,
      maxHoldMs: MAX_HOLD_MS,
    });
    const holdUntil = start - MARGIN_MS + MAX_HOLD_MS;
    expect(lease.deadline).toBe(start + TTL_MS - MARGIN_MS);
    // Renewals at TTL/3 and 2·TTL/3 move the deadline, capped at the maximum length.
    clock.advance(TTL_MS / 3);
    await settle(clock);
    expect(lease.deadline).toBe(Math.min(start + TTL_MS / 3 + TTL_MS - MARGIN_MS, holdUntil));
    clock.advance(TTL_MS / 3);
    await settle(clock);
    expect(lease.deadline).toBe(holdUntil);
    // Held until the maximum length, however often it would have renewed.
    clock.advance(holdUntil - clock.now() - 1);
    expect(() => lease.assertHeld()).not.toThrow();
    clock.advance(1);
    expect(() => lease.assertHeld()).toThrow(/maximum length/);
    await lease.release();
  });

  it("control: without maxHoldMs the same renewals keep it alive past that point", async ({ expect }) => {
    const clock = new ManualClock();
    const start = clock.now();
    const lease = await ScopeLease.acquire(lockTarget(env, freshScopeKey()), "run-a", {
      ttlMs: TTL_MS,
      safetyMarginMs: MARGIN_MS,
      clock,
    });
    for (let i = 0; i < 5; i++) {
      clock.advance(TTL_MS / 3);
      await settle(clock);
    }
    expect(clock.now() - start).toBeGreaterThanOrEqual(MAX_HOLD_MS - MARGIN_MS);
    expect(() => lease.assertHeld()).not.toThrow();
    await lease.release();
  });
});
