/**
 * Provider tokens across a fleet, inside the runtime: the load's shape (200 runs, 50 scopes, 10
 * emulated Auth0 tenants) with every run on an isolate of its own (its own, empty isolate token
 * cache), with and without the fleet's token objects; and what a three-line apply costs on a known
 * application once its connection is warm (docs/performance.md).
 */
import { env } from "cloudflare:workers";
import { it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import type { RunCounts } from "../../shared/schemas/run-metrics";
import { testEnv } from "../../test/helpers/connections";
import { configureHost, emulatorStub, freshAuth0Domain } from "../../test/helpers/emulators";
import { previewPlan, seedTenant } from "../../test/helpers/plans";
import { DEFAULT_REPOSITORY } from "../../test/helpers/repositories";
import { IsolateTokenCache } from "../../workers/adapters/http";
import { createEngine } from "../../workers/wiring/wire";
import { now, report } from "./stats";

const LATENCY_MS = Number((env as unknown as Record<string, string | undefined>).BENCH_LATENCY_MS ?? 20);
const RUNS = 200;
const SCOPES = 50;
const TENANTS = 10;
let base = Math.floor(Math.random() * 1e5) * 1000 + 500;

async function tenant(latencyMs = LATENCY_MS): Promise<string> {
  const domain = freshAuth0Domain("bench-tokens");
  await seedTenant(domain);
  await configureHost(domain, { latencyMs });
  return domain;
}

/** The 200-run load, each run on its own isolate; token exchanges counted at the transport. */
async function fleetLoad(sharedTokens: boolean) {
  const domains = await Promise.all(Array.from({ length: TENANTS }, () => tenant()));
  const plans = domains.map((d) => previewPlan(d));
  const scopes = Array.from({ length: SCOPES }, (_, i) => ({
    scope: `pr-${++base}`,
    plan: plans[i % TENANTS],
  }));
  let exchanges = 0;
  const wrapFetch = (inner: typeof fetch): typeof fetch => {
    return (input, init) => {
      if (new URL(new Request(input, init).url).pathname === "/oauth/token") exchanges += 1;
      return inner(input, init);
    };
  };
  const bindings = testEnv(env);
  const start = now();
  const runs = await Promise.all(
    Array.from({ length: RUNS }, (_, i) => {
      const { scope, plan } = scopes[i % SCOPES] as (typeof scopes)[number];
      // One engine per run with a cache of its own: the run sees an isolate nobody warmed.
      const engine = createEngine(bindings, emulatorTransport, {
        sharedTokens,
        sharedBudgets: false,
        isolateTokenCache: new IsolateTokenCache(),
        wrapFetch,
      });
      return engine.apply({
        repository: DEFAULT_REPOSITORY,
        environment: "preview",
        scope,
        plan,
        wait: true,
        waitTimeoutMs: 600_000,
      });
    }),
  );
  return {
    exchanges,
    wallMs: now() - start,
    failed: runs.filter((r) => r.run.status !== "succeeded").length,
  };
}

it("token exchanges: the 200-run load with the isolate cache cleared between runs", async () => {
  const withObject = await fleetLoad(true);
  const withoutObject = await fleetLoad(false);
  report("runtime.tokens", { runs: RUNS, scopes: SCOPES, connections: TENANTS, withObject, withoutObject });
});

it("a three-line apply on a known application with a warm connection", async () => {
  const domain = await tenant(0);
  const plan = previewPlan(domain);
  const engine = createEngine(testEnv(env), emulatorTransport, { sharedBudgets: false });
  const apply = (scope: string) =>
    engine.apply({ repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan });
  // The first run warms the token and the application's lock object (ownership, the lists seen).
  await apply(`pr-${++base}`);
  const before = await emulatorStub(domain).stats();
  const second = await apply(`pr-${++base}`);
  const after = await emulatorStub(domain).stats();
  if (second.run.status !== "succeeded") throw new Error(JSON.stringify(second.run.error));
  report("runtime.warm", {
    providerCalls: after.requests - before.requests,
    providerWrites: after.writes - before.writes,
    counts: second.counts as RunCounts,
    totalMs: second.timings?.total,
  });
});
