/**
 * Per-tenant write budgets inside the runtime (docs/design.md, "Write budgets"): 64 applies at
 * once over 8 applications of one emulated Auth0 tenant whose Free budget (burst 2, 2 per second)
 * the emulator enforces on the wall clock, every run on an isolate of its own, with the fleet's
 * budget objects and without them (the control) in one run. The wall time is set against the
 * budget's floor: the least time the budget allows for the calls the provider counted, and for
 * the fewest the writes need (each application read once and written once).
 */
import { env } from "cloudflare:workers";
import { it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import type { Plan } from "../../shared/schemas/plan";
import { testEnv } from "../../test/helpers/connections";
import {
  auth0Client,
  configureHost,
  emulatorStub,
  freshAuth0Domain,
  seedAuth0Tenant,
} from "../../test/helpers/emulators";
import { auth0Connection, TEST_M2M } from "../../test/helpers/plans";
import { DEFAULT_REPOSITORY } from "../../test/helpers/repositories";
import { IsolateTokenCache } from "../../workers/adapters/http";
import { createEngine } from "../../workers/wiring/wire";
import { now, report } from "./stats";

const LATENCY_MS = Number((env as unknown as Record<string, string | undefined>).BENCH_LATENCY_MS ?? 20);
const APPLICATIONS = 8;
const APPLIES = 64;
const FREE = { burst: 2, perSecond: 2 };
let base = Math.floor(Math.random() * 1e5) * 1000 + 700;

const application = (i: number) => `app-${i}`;

/** The least ms the budget allows for `calls` counted calls: the burst at once, then one per interval. */
const floorMs = (calls: number) => (Math.max(0, calls - FREE.burst) / FREE.perSecond) * 1000;

function planFor(domain: string, client: string): Plan {
  return {
    version: 2,
    lines: [
      {
        id: "callback",
        op: "auth0.callbackUrl",
        connection: auth0Connection(domain),
        params: { client, url: "https://{scope}.preview.example.com/callback" },
      },
    ],
  };
}

async function burst(sharedBudgets: boolean) {
  const domain = freshAuth0Domain("bench-budget");
  const clients = Object.fromEntries(
    Array.from({ length: APPLICATIONS }, (_, i) => [application(i), { callbacks: [] }]),
  );
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients });
  await configureHost(domain, { latencyMs: LATENCY_MS, budget: { ...FREE, clock: "wall" } });
  const scopes = Array.from({ length: APPLIES }, (_, i) => ({
    scope: `pr-${++base}`,
    client: application(i % APPLICATIONS),
  }));
  // Registers the tenant's connection before the bindings are read.
  const plans = new Map(scopes.map(({ client }) => [client, planFor(domain, client)]));
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
    scopes.map(({ scope, client }) =>
      // One engine per run with a token cache of its own: every run on an isolate of its own.
      createEngine(bindings, emulatorTransport, {
        sharedBudgets,
        isolateTokenCache: new IsolateTokenCache(),
        wrapFetch,
      }).apply({
        repository: DEFAULT_REPOSITORY,
        environment: "preview",
        scope,
        plan: plans.get(client) as Plan,
        wait: true,
        waitTimeoutMs: 600_000,
      }),
    ),
  );
  const wallMs = now() - start;
  const stats = await emulatorStub(domain).stats();
  await configureHost(domain, {});
  let lost = 0;
  for (let i = 0; i < APPLICATIONS; i++) {
    const callbacks = (await auth0Client(domain, application(i)))?.callbacks ?? [];
    for (const { scope } of scopes.filter((s) => s.client === application(i)))
      if (!callbacks.includes(`https://${scope}.preview.example.com/callback`)) lost++;
  }
  // What the tenant counted and let through: every Management API call but the refused ones.
  const counted = stats.requests - exchanges - stats.throttled;
  // Most runs never wait themselves: their changes are written by the run holding the lease.
  const budgetWaitMs = runs.map((r) => r.timings?.budgetWait ?? 0).filter((ms) => ms > 0);
  return {
    wallMs,
    counted,
    writes: stats.writes,
    refused429: stats.throttled,
    failed: runs.filter((r) => r.run.status !== "succeeded").length,
    missing: lost,
    floorMs: floorMs(counted),
    runsWaitingForBudget: budgetWaitMs.length,
    budgetWaitMaxMs: Math.max(0, ...budgetWaitMs),
  };
}

it("write budgets: 64 applies over 8 applications of one Auth0 Free tenant", async () => {
  const shared = await burst(true);
  const control = await burst(false);
  report("runtime.budget", {
    applies: APPLIES,
    applications: APPLICATIONS,
    latencyMs: LATENCY_MS,
    budget: FREE,
    fewestCallsFloorMs: floorMs(2 * APPLICATIONS),
    shared,
    control,
  });
});
