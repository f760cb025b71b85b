/**
 * Eviction holds only the stale scopes it needs (docs/design.md, "Evicting stale scopes"): they are
 * taken one at a time, stalest first, only until the run's changes fit, and one that turns out to
 * give no room (its entry shared with a live scope) is released at once, not at the run's end.
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
  scopeLockFree,
  setPullRequest,
  twoAppliedScopes,
  wrapScopeLocks,
} from "../../helpers/eviction";

/** Counts the scope-lock acquires the run makes, per scope. */
function countingAcquires(counts: Map<string, number>) {
  return wrapScopeLocks((t, scope) => ({
    ...t,
    acquire: (r) => {
      counts.set(scope, (counts.get(scope) ?? 0) + 1);
      return t.acquire(r);
    },
  }));
}

describe("eviction takes only the stale scopes it needs", () => {
  it("one slot short, a closed and an idle scope: only the closed one is taken", async () => {
    const { plan, origins } = await cappedOrigins("ev-lazy", 2);
    const [closed, idle] = await twoAppliedScopes(plan);
    const next = freshPr();
    await setPullRequest(closed, "closed");
    await ageRuns(idle, 10);
    const acquires = new Map<string, number>();
    const result = await evictingEngine({ wrapLocks: countingAcquires(acquires) }).apply(
      applyRequest(plan, next),
    );
    expect(result.run.status).toBe("succeeded");
    expect(acquires.get(closed)).toBe(1);
    expect(acquires.get(idle)).toBeUndefined();
    expect([...(await origins())].sort()).toEqual([origin(idle), origin(next)].sort());
  });

  it("the stalest scope's entry is shared with a live scope: it is released before the write, the next one evicted", async () => {
    const { plan, line, origins } = await cappedOrigins("ev-release", 2);
    const [shared, live, idle, next] = [freshPr(), freshPr(), freshPr(), freshPr()];
    const sameAsShared: Plan = { version: 2, lines: [line("same", origin(shared))] };
    expect((await evictingEngine().apply(applyRequest(plan, shared))).run.status).toBe("succeeded");
    expect((await evictingEngine().apply(applyRequest(sameAsShared, live))).run.status).toBe("succeeded");
    expect((await evictingEngine().apply(applyRequest(plan, idle))).run.status).toBe("succeeded");
    await setPullRequest(shared, "closed");
    await ageRuns(idle, 10);
    let freeAtWrite: boolean | null = null;
    const wrapFetch =
      (inner: typeof fetch): typeof fetch =>
      async (input, init) => {
        if (freeAtWrite === null && init?.method === "PATCH") freeAtWrite = await scopeLockFree(shared);
        return inner(input, init);
      };
    const result = await evictingEngine({ wrapFetch }).apply(applyRequest(plan, next));
    expect(result.run.status).toBe("succeeded");
    expect(freeAtWrite).toBe(true);
    expect([...(await origins())].sort()).toEqual([origin(shared), origin(next)].sort());
    expect((await receiptOf(shared)).evictions).toBeUndefined();
    expect((await receiptOf(idle)).evictions).toMatchObject([{ reason: "idle" }]);
  });
});
