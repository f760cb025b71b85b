/**
 * A waiter that queues after the holder's grant (docs/design.md, "Write combining"): the grant took
 * the queue in its own step, so this waiter is not the holder's to carry. It is never lost and
 * never written twice: it stays queued, untaken, is granted when the holder releases, and writes
 * its own changes under its own lease.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import type { FaultHook } from "../../workers/engine/deps";
import type { Engine } from "../../workers/engine/engine";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import {
  appLockKey,
  durableIntents,
  expectLocksFree,
  freshPr,
  providerWrites,
  untilWaiters,
} from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

function apply(e: Engine, scope: string, plan: Plan): Promise<RunResult> {
  return e.apply({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    plan,
    wait: true,
    waitTimeoutMs: 30_000,
  });
}

describe("a waiter that queues after the holder's grant", () => {
  it("is served by its own turn: granted after the holder, it writes its own changes, once", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const plan = previewPlan(domain);
    const key = await appLockKey(domain);
    const [a, b] = [freshPr(), freshPr()];
    let second: Promise<RunResult> | null = null;
    const waiterEngine = testEngine();
    // Right after the holder's grant, before its first call under it: the waiter queues.
    const queueWaiter: FaultHook = async (point) => {
      if (point !== "after-acquire" || second) return;
      second = apply(waiterEngine, b, plan);
      await untilWaiters(key, 1);
    };
    const writesBefore = await providerWrites(domain);
    const ra = await apply(testEngine({ faults: queueWaiter }), a, plan);
    if (!second) throw new Error("the holder never reached its grant");
    const rb = await (second as Promise<RunResult>);
    expect([ra.run.status, rb.run.status]).toEqual(["succeeded", "succeeded"]);
    // Not carried by the holder: written by the waiter itself, one write each.
    expect(rb.lines.every((l) => l.result === "created" && l.writtenBy === undefined)).toBe(true);
    expect(await providerWrites(domain)).toBe(writesBefore + 2);
    const callbacks = (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
    expect(callbacks).toEqual([
      `https://${a}.preview.example.com/callback`,
      `https://${b}.preview.example.com/callback`,
    ]);
    for (const scope of [a, b]) expect(await durableIntents("preview", scope)).toEqual([]);
    await expectLocksFree(expect, domain, [a, b]);
  });
});
