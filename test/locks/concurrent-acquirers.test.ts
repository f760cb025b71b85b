/**
 * 60 runs race for one lock key at once (docs/design.md, "Lease protocol"): some wait, some do not, some give
 * up after a few milliseconds. Each holder keeps the lease for a random number of renewals (round trips to
 * the object, drawn from a seeded PRNG: holds vary without any sleep) and then releases. The checker
 * proves from the object's own timestamps and tokens that no two holders overlapped.
 */
import { describe, it } from "vitest";
import { checkLockHistory, objectHistory, type Recorded } from "../helpers/lock-history";
import { freshScopeKey, stub } from "../helpers/locks";

const ACQUIRERS = 60;
const TTL_MS = 60_000;
const LONG_WAIT_MS = 60_000;
const SHORT_WAIT_MS = 5;
const SEED = 0x5eed_2;

/** mulberry32: a tiny seeded PRNG, so a failing mix can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Plan {
  holder: string;
  wait: boolean;
  waitTimeoutMs: number;
  holdRenewals: number;
}

describe("many concurrent acquirers on one key", () => {
  it(`${ACQUIRERS} acquirers with random holds never overlap and get increasing tokens`, async ({
    expect,
  }) => {
    const key = freshScopeKey("race");
    const random = prng(SEED);
    const plans: Plan[] = Array.from({ length: ACQUIRERS }, (_, i) => {
      const wait = random() < 0.7;
      return {
        holder: `run-${i}`,
        wait,
        waitTimeoutMs: wait && random() < 0.2 ? SHORT_WAIT_MS : LONG_WAIT_MS,
        holdRenewals: Math.floor(random() * 4),
      };
    });

    const events: Recorded[] = [];
    // Logical instants, one counter for every caller: a.res < b.inv means a finished before b began.
    let clock = 0;
    const refusals: { holder: string; code: string }[] = [];
    const problems: string[] = [];
    // A witness on the client side as well: who believes they hold the lock right now.
    let inside: string | null = null;

    const run = async (plan: Plan) => {
      // Each run has its own stub, as separate CI jobs would.
      const lock = stub(key);
      const inv = ++clock;
      const result = await lock.acquire({
        key,
        holder: plan.holder,
        ttlMs: TTL_MS,
        wait: plan.wait,
        waitTimeoutMs: plan.waitTimeoutMs,
      });
      if (!result.ok) {
        refusals.push({ holder: plan.holder, code: result.error.code });
        return;
      }
      const { token, acquiredAt, expiresAt } = result.value;
      const grant = { holder: plan.holder, token, at: acquiredAt, expiresAt, waited: plan.wait };
      events.push({ type: "grant", ...grant, inv, res: ++clock });
      if (inside !== null) problems.push(`${plan.holder} was granted while ${inside} held the lock`);
      inside = plan.holder;
      for (let i = 0; i < plan.holdRenewals; i++) {
        const renewInv = ++clock;
        const renewed = await lock.renew({ key, holder: plan.holder, token });
        if (!renewed.ok || renewed.value.token !== token) problems.push(`${plan.holder} lost its lease`);
        else {
          const { expiresAt: until } = renewed.value;
          events.push({
            type: "renew",
            holder: plan.holder,
            token,
            expiresAt: until,
            inv: renewInv,
            res: ++clock,
          });
        }
      }
      inside = null;
      const releaseInv = ++clock;
      const released = await lock.release({ key, holder: plan.holder, token });
      if (!released.ok || !released.value.released) problems.push(`${plan.holder} could not release`);
      else {
        const { at } = released.value;
        events.push({
          type: "release",
          holder: plan.holder,
          token,
          released: true,
          at,
          inv: releaseInv,
          res: ++clock,
        });
      }
    };

    await Promise.all(plans.map(run));

    // Control: the mix really contended (some were refused, many were handed the lock in turn).
    expect(refusals.length).toBeGreaterThan(0);
    expect(events.filter((e) => e.type === "grant").length).toBeGreaterThan(ACQUIRERS / 2);
    expect(problems).toEqual([]);
    expect(checkLockHistory(events)).toEqual([]);
    // Everyone who asked was either granted or refused, and only ever with LOCK_HELD.
    const grants = events.filter((e) => e.type === "grant");
    expect(grants.length + refusals.length).toBe(ACQUIRERS);
    expect(new Set(refusals.map((r) => r.code))).toEqual(new Set(refusals.length ? ["LOCK_HELD"] : []));
    // Whoever waited long enough got the lock in the end.
    const grantedHolders = new Set(grants.map((g) => g.holder));
    for (const plan of plans.filter((p) => p.wait && p.waitTimeoutMs === LONG_WAIT_MS)) {
      expect(grantedHolders.has(plan.holder), `${plan.holder} waited and was never granted`).toBe(true);
    }
    // Tokens are exactly 1..n: strictly increasing, none skipped or reused.
    expect(grants.map((g) => g.token).sort((a, b) => a - b)).toEqual(grants.map((_, i) => i + 1));

    // Cross-check against the object's own (bounded) history.
    const state = await stub(key).read({ key });
    expect(state).toMatchObject({ held: false, waiters: [], lastToken: grants.length });
    expect(checkLockHistory(objectHistory(state.history), { window: true })).toEqual([]);
    const recorded = new Set(
      events.map((e) => ("at" in e ? `${e.type}:${e.holder}:${e.token}:${e.at}` : "")),
    );
    for (const h of state.history) {
      if (h.transition === "acquired") expect(recorded).toContain(`grant:${h.holder}:${h.token}:${h.at}`);
      if (h.transition === "released") expect(recorded).toContain(`release:${h.holder}:${h.token}:${h.at}`);
    }
    // A waiter's first renewal is also its claim of the grant (recorded as "claimed").
    expect(
      state.history.every((h) => ["acquired", "claimed", "renewed", "released"].includes(h.transition)),
    ).toBe(true);
  });
});
