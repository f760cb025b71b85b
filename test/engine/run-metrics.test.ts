/**
 * A run's metrics outside HTTP: the measuring itself (overlapping calls count once, so no part
 * exceeds the total), and runs the Worker starts on its own (a queued destroy) recording their
 * timings and counts in the receipt with the run.
 */
import { describe, expect, it } from "vitest";
import { RunMetrics } from "../../workers/engine/run/run-metrics";
import { apply, testApp } from "../helpers/app";
import { ManualClock } from "../helpers/clock";
import { emulatorStub, freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";
import { scopeAddress } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

/** A promise the test settles when it chooses, standing for a call in flight. */
function pending() {
  let settle!: () => void;
  const promise = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}

describe("run metrics", () => {
  it("two provider calls in flight at once count as one busy stretch, not their sum", async () => {
    const clock = new ManualClock(1_000);
    const metrics = new RunMetrics(undefined, () => clock.now());
    const a = pending();
    const b = pending();
    const first = metrics.time("provider", () => a.promise);
    clock.advance(10);
    const second = metrics.time("provider", () => b.promise);
    clock.advance(30);
    a.settle();
    await first;
    clock.advance(20);
    b.settle();
    await second;
    clock.advance(5);
    // In flight from 0 to 60 (not 40 + 50 = 90); the run is 65 ms old.
    expect(metrics.timings()).toMatchObject({ provider: 60, total: 65, storage: 0 });
  });

  it("time measured before the run (the request's authorization) counts from the request's arrival", () => {
    const clock = new ManualClock(1_000);
    const arrival = clock.now();
    clock.advance(12);
    const metrics = new RunMetrics(arrival, () => clock.now());
    metrics.add("authorization", clock.now() - arrival);
    metrics.timeSync("authorization", () => clock.advance(3));
    metrics.count("lockOps", 2);
    metrics.count("storageWrites");
    expect(metrics.timings()).toMatchObject({ authorization: 15, total: 15 });
    metrics.leaseAsked("scope:1/preview/pr-1");
    metrics.leaseAsked("scope:1/preview/pr-1"); // a re-join asks the same lock again
    expect(metrics.counts()).toEqual({
      providerCalls: 0,
      lockOps: 2,
      storageReads: 0,
      storageWrites: 1,
      locks: 1,
    });
  });

  it("a call still in flight when the result is taken counts up to that moment", async () => {
    const clock = new ManualClock(1_000);
    const metrics = new RunMetrics(undefined, () => clock.now());
    const call = pending();
    const inFlight = metrics.time("storage", () => call.promise);
    clock.advance(7);
    expect(metrics.timings()).toMatchObject({ storage: 7, total: 7 });
    call.settle();
    await inFlight;
  });

  it("a queued destroy that skips (its scope reopened) records the run with its timings and counts", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    await apply(testApp(), "preview", scope, previewPlan(domain));
    const before = (await emulatorStub(domain).stats()).requests;
    // The queue consumer's call (workers/wiring/background.ts), with a guard that says "reopened".
    const engine = testEngine();
    const result = await engine.destroy(
      { ...scopeAddress("preview", scope), wait: true },
      undefined,
      () => "reopened",
    );
    expect(result.run.skipped).toBe("reopened");
    const record = (await receipt("preview", scope)).runs.find((r) => r.id === result.run.id);
    expect(record?.counts).toBeDefined();
    // Scope state read twice, the receipt before the lease and under it; the scope lease taken.
    expect(record?.counts?.storageReads).toBeGreaterThanOrEqual(3);
    expect(record?.counts?.lockOps).toBeGreaterThanOrEqual(1);
    expect(record?.counts?.providerCalls).toBe((await emulatorStub(domain).stats()).requests - before);
    for (const part of ["authorization", "scopeLockWait", "parentLockWait", "provider", "storage"] as const)
      expect(record?.timings?.[part]).toBeLessThanOrEqual(record?.timings?.total as number);
    expect(result.counts?.storageWrites).toBe(1);
  });
});
