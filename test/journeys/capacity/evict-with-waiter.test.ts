/**
 * Eviction under write combining (docs/design.md, "Lists at their cap"; "Evicting stale scopes"):
 * the holder's own changes are fitted without any waiter, so a waiter that joins an entry a stale
 * scope alone owns (its removal then only lets go) is refused alone, never the holder.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { RunResult } from "../../../shared/schemas/run";
import { appLockKey, freshPr, holdAppLock, untilWaiters } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  evictingEngine,
  origin,
  receiptOf,
  setPullRequest,
} from "../../helpers/eviction";

/** Runs queued in this order behind a lock held by hand, then let go: the first is the holder. */
async function queued(domain: string, runs: Array<() => Promise<RunResult>>) {
  const key = await appLockKey(domain);
  const held = await holdAppLock(domain);
  const started: Array<Promise<RunResult>> = [];
  for (const [i, run] of runs.entries()) {
    started.push(run());
    await untilWaiters(key, i + 1);
  }
  await held.release();
  return Promise.all(started);
}

describe("eviction with a waiter carried", () => {
  it("a waiter joins the URL the stale scope alone owns: the holder evicts it and is written; the waiter is refused LIST_FULL", async () => {
    const { domain, plan, line, origins } = await cappedOrigins("ev-waiter", 2);
    const [stale, live, holder, waiter] = [freshPr(), freshPr(), freshPr(), freshPr()];
    for (const s of [stale, live])
      expect((await evictingEngine().apply(applyRequest(plan, s))).run.status).toBe("succeeded");
    await setPullRequest(stale, "closed");
    const wantsStaleUrl: Plan = { version: 2, lines: [line("same", origin(stale))] };
    const [rh, rw] = await queued(domain, [
      () => evictingEngine({ combining: true }).apply(applyRequest(plan, holder)),
      () => evictingEngine({ combining: true }).apply(applyRequest(wantsStaleUrl, waiter)),
    ]);
    expect(rh?.run.error?.code).toBeUndefined();
    expect(rh?.run.status).toBe("succeeded");
    expect(rw?.run.error?.code).toBe("LIST_FULL");
    expect([...(await origins())].sort()).toEqual([origin(live), origin(holder)].sort());
    expect((await receiptOf(stale)).evictions).toMatchObject([{ reason: "closed", keys: [origin(stale)] }]);
  }, 90_000);
});
