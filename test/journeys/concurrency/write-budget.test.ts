/**
 * The per-tenant write budget (docs/design.md, "Write budgets"): 64 applies at once over 8
 * applications of one Auth0 tenant on the Free plan's budget (burst 2, 2 per second), which the
 * emulator enforces with Auth0's own 429s. Write combining bounds the writes per application; only
 * the tenant's shared budget keeps the fleet's reads and writes of all 8 under the tenant's limit:
 * with it no call meets a 429 and every entry is there; the control, the same runs without the
 * shared budget, meets the provider's 429s. Time is virtual (test/helpers/virtual-time.ts): the
 * emulator reads each request's time from the engine's clock, so no outcome depends on how fast
 * the machine is.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { call, runOf, testApp } from "../../helpers/app";
import {
  auth0Client,
  configureHost,
  emulatorStub,
  freshAuth0Domain,
  seedAuth0Tenant,
} from "../../helpers/emulators";
import { auth0Connection, TEST_M2M } from "../../helpers/plans";
import { VirtualTime } from "../../helpers/virtual-time";

const APPLICATIONS = 8;
const APPLIES = 64;
const FREE = { burst: 2, perSecond: 2 };

const application = (i: number) => `app-${i}`;
const callbackOf = (scope: string) => `https://${scope}.preview.example.com/callback`;

async function tenant() {
  const domain = freshAuth0Domain("budget");
  const clients = Object.fromEntries(
    Array.from({ length: APPLICATIONS }, (_, i) => [application(i), { callbacks: [] }]),
  );
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients });
  return domain;
}

/** One callback URL naming the scope, on the scope's application. */
function planFor(domain: string, app: string): Plan {
  return {
    version: 2,
    lines: [
      {
        id: "callback",
        op: "auth0.callbackUrl",
        connection: auth0Connection(domain),
        params: { client: app, url: "https://{scope}.preview.example.com/callback" },
      },
    ],
  };
}

async function scenario(sharedBudgets: boolean) {
  const domain = await tenant();
  const time = new VirtualTime();
  const app = testApp({ engine: { clock: time.clock, wrapFetch: time.wrapFetch, sharedBudgets } });
  const bindings = time.bindings();
  // Turned on after seeding: the tenant's budget counts the runs' Management API calls only.
  await configureHost(domain, { budget: { ...FREE, clock: "header" } });
  const base = Math.floor(Math.random() * 1e6) * 100;
  const scopes = Array.from({ length: APPLIES }, (_, i) => ({
    scope: `pr-${base + i}`,
    app: application(i % APPLICATIONS),
  }));
  const started = time.clock.now();
  const runs = await time.drive(
    Promise.all(
      scopes.map(async ({ scope, app: client }) => {
        const res = await call(
          app,
          "POST",
          `/v1/scopes/preview/${scope}/apply`,
          { plan: planFor(domain, client), wait: true, waitTimeoutSeconds: 600 },
          {},
          bindings,
        );
        return runOf(res, `apply ${scope}`);
      }),
    ),
  );
  const elapsedMs = time.clock.now() - started;
  const stats = await emulatorStub(domain).stats();
  const lost: string[] = [];
  for (let i = 0; i < APPLICATIONS; i++) {
    const callbacks = (await auth0Client(domain, application(i)))?.callbacks ?? [];
    for (const { scope } of scopes.filter((s) => s.app === application(i)))
      if (!callbacks.includes(callbackOf(scope))) lost.push(scope);
  }
  await configureHost(domain, {});
  const failed = runs.filter((r) => r.run.status !== "succeeded");
  return { runs, failed, lost, stats, elapsedMs };
}

describe("a tenant's write budget, shared by every run of the fleet", () => {
  it(`${APPLIES} applies over ${APPLICATIONS} applications of one Auth0 Free tenant: no 429, no run failed, nothing lost`, async () => {
    const { failed, lost, stats, elapsedMs } = await scenario(true);
    expect(failed.map((r) => r.run.error ?? r.lines.find((l) => l.error)?.error)).toEqual([]);
    expect(lost).toEqual([]);
    expect(stats.throttled).toBe(0);
    // Every counted call waited its turn: the budget's floor for them is (calls − burst) ÷ rate.
    const counted = stats.requests - 1;
    expect(elapsedMs).toBeGreaterThanOrEqual(((counted - FREE.burst) / FREE.perSecond) * 1000);
    console.info(
      `write budget: ${APPLIES} applies, ${stats.requests} provider requests (${stats.writes} writes), 0 refused, ${(elapsedMs / 1000).toFixed(1)} s of provider time`,
    );
  }, 300_000);

  it("control: the same applies without the shared budget meet the provider's 429s", async () => {
    const { failed, lost, stats } = await scenario(false);
    expect(stats.throttled).toBeGreaterThan(0);
    console.info(
      `write budget control: ${stats.throttled} calls refused 429 by the tenant, ${failed.length} runs failed, ${lost.length} entries missing`,
    );
  }, 300_000);
});
