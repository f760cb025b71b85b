/**
 * Eviction under write combining (docs/design.md, "Lists at their cap"; "Evicting stale scopes"):
 * the holder's own changes are fitted without any waiter, so a waiter that joins an entry a stale
 * scope alone owns (its removal then only lets go) is refused alone, never the holder.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { RunResult } from "../../../shared/schemas/run";
import { configureHost } from "../../helpers/emulators";
import { appLockKey, freshPr, holdAppLock, untilWaiters } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  evictingEngine,
  origin,
  originOwners,
  receiptOf,
  scopeLockFree,
  setPullRequest,
} from "../../helpers/eviction";

/** Runs queued in this order behind a lock held by hand, then let go: the first is the holder. */
async function queued(
  domain: string,
  runs: Array<() => Promise<RunResult>>,
  beforeRelease: () => Promise<unknown> = async () => {},
) {
  const key = await appLockKey(domain);
  const held = await holdAppLock(domain);
  const started: Array<Promise<RunResult>> = [];
  for (const [i, run] of runs.entries()) {
    started.push(run());
    await untilWaiters(key, i + 1);
  }
  await beforeRelease();
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

  it("the evicting write carrying a waiter is refused once by the provider: written again alone, the closed scope is evicted once, and its ledger and the lock agree", async () => {
    const { domain, plan, origins } = await cappedOrigins("ev-waiter-refused", 2);
    const [closed, live, holder, waiter] = [freshPr(), freshPr(), freshPr(), freshPr()];
    for (const s of [closed, live])
      expect((await evictingEngine().apply(applyRequest(plan, s))).run.status).toBe("succeeded");
    await setPullRequest(closed, "closed");
    // The holder's first, combined write is refused (a 400): the waiter's changes go back, and the
    // holder writes its own alone, evicting again.
    const requests: string[] = [];
    const [rh, rw] = await queued(
      domain,
      [
        () => evictingEngine({ combining: true, requests }).apply(applyRequest(plan, holder)),
        () => evictingEngine({ combining: true }).apply(applyRequest(plan, waiter)),
      ],
      () => configureHost(domain, { failures: [{ status: 400, count: 1, on: "write" }] }),
    );
    await configureHost(domain, {});
    expect(rh?.run.status).toBe("succeeded");
    expect(requests.filter((r) => r.startsWith("PATCH "))).toHaveLength(2);
    expect(rw?.run.error?.code).toBe("LIST_FULL");
    expect([...(await origins())].sort()).toEqual([origin(live), origin(holder)].sort());
    const receipt = await receiptOf(closed);
    expect(receipt.ledger).toEqual([]);
    expect(receipt.intents).toEqual([]);
    expect(receipt.evictions).toMatchObject([{ runId: rh?.run.id, keys: [origin(closed)] }]);
    expect(await originOwners(domain, origin(closed))).toEqual([]);
    expect(await scopeLockFree(closed)).toBe(true);
  }, 90_000);
});
