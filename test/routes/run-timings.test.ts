/**
 * Runs say where their time went: every run answer over HTTP carries timings and counts that
 * match what was observed at the transport and the lock objects, and a Server-Timing header.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import type { RunEvent, RunResult, RunTimings } from "../../shared/schemas/run";
import { RunMetrics } from "../../workers/engine/run/run-metrics";
import { lockTarget } from "../../workers/locks/lock-target";
import { call, testApp } from "../helpers/app";
import { ManualClock } from "../helpers/clock";
import { configureHost, emulatorStub, freshAuth0Domain } from "../helpers/emulators";
import { freshPr, holdAppLock, receipt, untilWaiters } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const app = testApp();

const PARTS = ["authorization", "scopeLockWait", "parentLockWait", "provider", "storage"] as const;
const HEADER_NAMES: Record<string, keyof RunTimings> = {
  auth: "authorization",
  "scope-lock": "scopeLockWait",
  "parent-lock": "parentLockWait",
  provider: "provider",
  storage: "storage",
  budget: "budgetWait",
  total: "total",
};

/** `auth;dur=1.5, total;dur=9` → { authorization: 1.5, total: 9 }; fails on anything else. */
function parseServerTiming(header: string | null): Partial<RunTimings> {
  expect(header).not.toBeNull();
  const parsed: Partial<RunTimings> = {};
  for (const metric of (header as string).split(",")) {
    const match = /^\s*([a-z-]+);dur=(\d+(?:\.\d+)?)\s*$/.exec(metric);
    expect(match, `metric "${metric}"`).not.toBeNull();
    const field = HEADER_NAMES[match?.[1] as string];
    expect(field, `metric name ${match?.[1]}`).toBeDefined();
    parsed[field as keyof RunTimings] = Number(match?.[2]);
  }
  return parsed;
}

async function providerRequests(domain: string): Promise<number> {
  return (await emulatorStub(domain).stats()).requests;
}

async function applyOver(scope: string, body: object, headers: Record<string, string> = {}) {
  return call(app, "POST", `/v1/scopes/preview/${scope}/apply`, body, headers);
}

function expectPlausible(result: RunResult) {
  const { timings, counts } = result;
  expect(timings).toBeDefined();
  expect(counts).toBeDefined();
  for (const part of PARTS) {
    expect(timings?.[part]).toBeGreaterThanOrEqual(0);
    expect(timings?.[part]).toBeLessThanOrEqual(timings?.total as number);
  }
}

describe("run timings and counts over HTTP", () => {
  it("an apply's counts match the provider requests the emulator saw; the header repeats the timings", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const res = await applyOver(freshPr(), { plan: previewPlan(domain) });
    expect(res.status).toBe(200);
    const result = (await res.json()) as RunResult;
    expect(result.run.status).toBe("succeeded");
    expectPlausible(result);
    // A fresh tenant: every request it saw was this run's (token exchange, reads, writes).
    expect(result.counts?.providerCalls).toBe(await providerRequests(domain));
    expect(result.counts?.providerCalls).toBeGreaterThan(1);
    // Scope lease acquire + release at least, and the parent lease and its ownership calls.
    expect(result.counts?.lockOps).toBeGreaterThanOrEqual(4);
    // Scope state before and under the lease, the receipt before the lease and under it.
    expect(result.counts?.storageReads).toBeGreaterThanOrEqual(4);
    expect(result.counts?.storageWrites).toBeGreaterThanOrEqual(1);
    // Its scope's lock and the application's.
    expect(result.counts?.locks).toBe(2);
    expect(parseServerTiming(res.headers.get("server-timing"))).toEqual(result.timings);
  });

  it("provider time covers every provider request's latency", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    await configureHost(domain, { latencyMs: 15 });
    const result = (await (await applyOver(freshPr(), { plan: previewPlan(domain) })).json()) as RunResult;
    expectPlausible(result);
    const calls = result.counts?.providerCalls as number;
    expect(calls).toBe(await providerRequests(domain));
    // The calls are sequential and each is held 15 ms by the emulator.
    expect(result.timings?.provider).toBeGreaterThanOrEqual(15 * calls);
  });

  it("time spent waiting for a held parent lock is parent-lock time, not scope-lock time", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const plan = previewPlan(domain);
    // The run's clock moves only while the test says: 250 ms pass while the run waits in the
    // parent lock's queue, and none anywhere else, so the split is exact (no two timings raced).
    const clock = new ManualClock(0);
    const metrics = new RunMetrics(0, () => clock.now());
    const engine = testEngine();
    const held = await holdAppLock(domain);
    const pending = engine.apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope: freshPr(),
      plan,
      wait: true,
      metrics,
    });
    await untilWaiters(held.key, 1);
    clock.advance(250);
    await held.release();
    const result = await pending;
    expect(result.run.status).toBe("succeeded");
    expect(result.timings).toMatchObject({ parentLockWait: 250, scopeLockWait: 0, total: 250 });
  });

  it("a preview is measured too: provider reads, receipt reads and one read of the object's owners, no lease", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/preview`, {
      plan: previewPlan(domain),
    });
    const result = (await res.json()) as RunResult;
    expectPlausible(result);
    expect(result.counts).toEqual({
      providerCalls: await providerRequests(domain),
      // The application's owners, read-only: no entry of another repository is told (preview.ts).
      lockOps: 1,
      storageReads: 1,
      storageWrites: 0,
      locks: 0,
    });
    expect(parseServerTiming(res.headers.get("server-timing"))).toEqual(result.timings);
  });

  it("a streamed run sends authorization in the header and the full timings in its result event", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const res = await applyOver(freshPr(), { plan: previewPlan(domain) }, { accept: "application/x-ndjson" });
    expect(res.status).toBe(200);
    const header = parseServerTiming(res.headers.get("server-timing"));
    expect(Object.keys(header)).toEqual(["authorization"]);
    const events = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RunEvent);
    const last = events.at(-1);
    expect(last?.type).toBe("result");
    const result = (last as Extract<RunEvent, { type: "result" }>).result;
    expectPlausible(result);
    expect(result.counts?.providerCalls).toBe(await providerRequests(domain));
    expect(result.timings?.authorization).toBeGreaterThanOrEqual(header.authorization as number);
  });

  it("the receipt's run record keeps the timings and counts (what the dashboard shows)", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const result = (await (await applyOver(scope, { plan: previewPlan(domain) })).json()) as RunResult;
    const [record] = (await receipt("preview", scope)).runs;
    expect(record?.id).toBe(result.run.id);
    expect(record?.counts?.providerCalls).toBe(result.counts?.providerCalls);
    // Recorded before the receipt write that keeps it: the answer has seen one more write.
    expect(record?.counts?.storageWrites).toBeLessThan(result.counts?.storageWrites as number);
    // Every part the answer says, the record says too (no two measurements are compared).
    expect(Object.keys(record?.timings ?? {}).sort()).toEqual(Object.keys(result.timings ?? {}).sort());
  });

  it("a run refused because the scope is locked still says how long it took to refuse", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
    const grant = await lockTarget(env, key).acquire({
      holder: "run-other",
      ttlMs: 60_000,
      wait: false,
      waitTimeoutMs: 0,
    });
    if (!grant.ok) throw new Error(grant.error.message);
    const res = await applyOver(scope, { plan: previewPlan(domain) });
    expect(res.status).toBe(409);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    const timing = parseServerTiming(res.headers.get("server-timing"));
    expect(timing.total).toBeGreaterThanOrEqual(timing.scopeLockWait as number);
    await lockTarget(env, key).release({ holder: "run-other", token: grant.value.token });
  });
});
