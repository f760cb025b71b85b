/**
 * Staleness decided again under the stale scope's lease (docs/design.md, "Evicting stale
 * scopes"): the owners read that ranks the stale scopes comes before their leases are taken, so a
 * scope whose own run came and went in between (or whose PR was reopened) is live by the time it
 * is held, and is skipped and released, never evicted.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { freshPr } from "../../helpers/engine";
import {
  ageRuns,
  applyRequest,
  cappedOrigins,
  evictingEngine,
  origin,
  receiptOf,
  setPullRequest,
  wrapScopeLocks,
} from "../../helpers/eviction";

/** Runs `between` once, right before the scope lease of `scope` is asked for. */
function beforeTaking(scope: string, between: () => Promise<void>) {
  let done = false;
  return wrapScopeLocks((t, s) =>
    s !== scope
      ? t
      : {
          ...t,
          acquire: async (r) => {
            if (!done) {
              done = true;
              await between();
            }
            return t.acquire(r);
          },
        },
  );
}

async function ownRun(plan: Plan, scope: string): Promise<string> {
  return (await evictingEngine().apply(applyRequest(plan, scope))).run.status;
}

describe("a stale scope that is live again by the time it is held", () => {
  it("idle 10 days, its own run finishes between the owners read and the take: skipped, its entry kept", async () => {
    const { plan, origins } = await cappedOrigins("ev-idle", 2);
    const [idle, live, next] = [freshPr(), freshPr(), freshPr()];
    for (const s of [idle, live]) expect(await ownRun(plan, s)).toBe("succeeded");
    await ageRuns(idle, 10);
    let between = "";
    const wrapLocks = beforeTaking(idle, async () => {
      between = await ownRun(plan, idle);
    });
    const result = await evictingEngine({ wrapLocks }).apply(applyRequest(plan, next));
    expect(between).toBe("succeeded");
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect([...(await origins())].sort()).toEqual([origin(idle), origin(live)].sort());
    const receipt = await receiptOf(idle);
    expect(receipt.ledger.map((e) => e.key)).toEqual([origin(idle)]);
    expect(receipt.evictions).toBeUndefined();
  });

  it("closed, its PR reopened between the owners read and the take: skipped, its entry kept", async () => {
    const { plan, origins } = await cappedOrigins("ev-reopen", 2);
    const [closed, live, next] = [freshPr(), freshPr(), freshPr()];
    for (const s of [closed, live]) expect(await ownRun(plan, s)).toBe("succeeded");
    await setPullRequest(closed, "closed");
    const wrapLocks = beforeTaking(closed, () => setPullRequest(closed, "open"));
    const result = await evictingEngine({ wrapLocks }).apply(applyRequest(plan, next));
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect([...(await origins())].sort()).toEqual([origin(closed), origin(live)].sort());
    expect((await receiptOf(closed)).evictions).toBeUndefined();
  });

  it("control: still idle when held (nothing in between): evicted", async () => {
    const { plan, origins } = await cappedOrigins("ev-stillidle", 2);
    const [idle, live, next] = [freshPr(), freshPr(), freshPr()];
    for (const s of [idle, live]) expect(await ownRun(plan, s)).toBe("succeeded");
    await ageRuns(idle, 10);
    const wrapLocks = beforeTaking(idle, async () => {});
    expect((await evictingEngine({ wrapLocks }).apply(applyRequest(plan, next))).run.status).toBe(
      "succeeded",
    );
    expect([...(await origins())].sort()).toEqual([origin(live), origin(next)].sort());
    expect((await receiptOf(idle)).evictions).toMatchObject([{ reason: "idle", idleDays: 10 }]);
  });
});
