/**
 * An entry the evicting run joins is not evicted (docs/design.md, "Evicting stale scopes"): a
 * stale scope's removal of an entry the run's own changes (or a waiter it carries) want as well
 * would only let go of it, so the scope is never made to give it up. It keeps its ownership and
 * its ledger keeps the entry, both true: its next apply finds the entry its own, and the evicting
 * run's destroy leaves it where the idle scope still wants it.
 *
 * Judged against what each scope last asked for (the model), on the provider's list.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { RunResult } from "../../../shared/schemas/run";
import { StepClock } from "../../helpers/clock";
import { appLockKey, freshPr, holdAppLock, untilWaiters } from "../../helpers/engine";
import {
  applyRequest,
  cappedOrigins,
  destroyRequest,
  evictingEngine,
  origin,
  originOwners,
  receiptOf,
} from "../../helpers/eviction";

const DAY_MS = 24 * 60 * 60 * 1000;
const FOREIGN = "https://app.example.com";
const FIXED = "https://fixed.example.com";
const OWN = "https://{scope}.preview.example.com";
const sorted = (xs: readonly string[]) => [...xs].sort();

/** A client capped at `cap` with one foreign origin; engines on one manual clock. */
async function world(name: string, cap: number) {
  const list = await cappedOrigins(name, cap, [FOREIGN]);
  const clock = new StepClock();
  const engine = (combining = false) => evictingEngine({ clock, ...(combining ? { combining } : {}) });
  const plan = (...urls: string[]): Plan => ({
    version: 2,
    lines: urls.map((url, i) => list.line(`l${i}`, url)),
  });
  return { ...list, clock, engine, plan };
}

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

describe("eviction never takes an entry the write itself wants", () => {
  it("the evicting run joins the idle scope's URL: the idle scope keeps it, re-applies it truly, and the evicting run's destroy leaves it", async () => {
    const w = await world("ev-joined", 3);
    const [idle, next] = [freshPr(), freshPr()];
    expect((await w.engine().apply(applyRequest(w.plan(FIXED, OWN), idle))).run.status).toBe("succeeded");
    w.clock.jump(10 * DAY_MS); // idle 10 days, its pull request still open

    const evicting = await w.engine().apply(applyRequest(w.plan(FIXED, OWN), next));
    expect(evicting.run.status).toBe("succeeded");
    expect(sorted(await w.origins())).toEqual(sorted([FOREIGN, FIXED, origin(next)]));
    // Only the idle scope's own origin was evicted; the URL both want stays both scopes'.
    expect((await receiptOf(idle)).evictions).toMatchObject([{ keys: [origin(idle)], reason: "idle" }]);
    expect(await originOwners(w.domain, FIXED)).toEqual(sorted([idle, next]));

    // The idle scope pushes again, now wanting only the shared URL: what it says is true.
    const again = await w.engine().apply(applyRequest(w.plan(FIXED), idle));
    expect(again.run.status).toBe("succeeded");
    expect(again.lines.map((l) => l.result)).toEqual(["unchanged"]);
    expect((await w.engine().destroy(destroyRequest(next))).run.status).toBe("succeeded");
    // The model: the idle scope's last apply wants FIXED, nobody else wants anything.
    expect(sorted(await w.origins())).toEqual(sorted([FOREIGN, FIXED]));
    expect(await originOwners(w.domain, FIXED)).toEqual([idle]);
    expect((await receiptOf(idle)).ledger.map((e) => e.key)).toEqual([FIXED]);
  }, 60_000);

  it("a carried waiter joins the idle scope's URL while the rest of it makes room: the idle scope keeps that URL, and the waiter's destroy leaves it", async () => {
    const w = await world("ev-joined-waiter", 3);
    const keep = "https://keep.example.com";
    const [idle, holder, waiter] = [freshPr(), freshPr(), freshPr()];
    expect((await w.engine().apply(applyRequest(w.plan(keep, OWN), idle))).run.status).toBe("succeeded");
    w.clock.jump(10 * DAY_MS);

    const [rh, rw] = await queued(w.domain, [
      () => w.engine(true).apply(applyRequest(w.plan(OWN), holder)),
      () => w.engine(true).apply(applyRequest(w.plan(keep), waiter)),
    ]);
    expect(rh?.run.status).toBe("succeeded");
    expect(rw?.run.status).toBe("succeeded");
    expect(rw?.lines[0]?.writtenBy).toBe(rh?.run.id);
    expect(sorted(await w.origins())).toEqual(sorted([FOREIGN, keep, origin(holder)]));
    expect(await originOwners(w.domain, keep)).toEqual(sorted([idle, waiter]));

    const again = await w.engine().apply(applyRequest(w.plan(keep), idle));
    expect(again.lines.map((l) => l.result)).toEqual(["unchanged"]);
    expect((await w.engine().destroy(destroyRequest(waiter))).run.status).toBe("succeeded");
    expect(sorted(await w.origins())).toEqual(sorted([FOREIGN, keep, origin(holder)]));
    expect(await originOwners(w.domain, keep)).toEqual([idle]);
  }, 60_000);
});
