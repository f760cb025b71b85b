/**
 * Runs inside the runtime (real lock objects, R2, the Auth0 emulator with a fixed latency per
 * provider call): contended applies on one application against the serial bound and the control
 * case without parent locks, independent applications, and the steady state of a 100-line plan.
 */
import { env } from "cloudflare:workers";
import { it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import type { Plan } from "../../shared/schemas/plan";
import { testEnv } from "../../test/helpers/connections";
import { auth0Client, configureHost, emulatorStub, freshAuth0Domain } from "../../test/helpers/emulators";
import { appLockKey } from "../../test/helpers/engine";
import { APP_CLIENT, auth0Plan, previewPlan, seedTenant } from "../../test/helpers/plans";
import { DEFAULT_REPOSITORY } from "../../test/helpers/repositories";
import { lockStub } from "../../workers/locks/lock-target";
import { createEngine } from "../../workers/wiring/wire";
import { now, report, summary } from "./stats";

const LATENCY_MS = Number((env as unknown as Record<string, string | undefined>).BENCH_LATENCY_MS ?? 20);
const REPS = Number((env as unknown as Record<string, string | undefined>).BENCH_REPS ?? 3);
const KS = [1, 2, 4, 8, 16, 32];
let base = Math.floor(Math.random() * 1e5) * 1000;

async function world(latencyMs = LATENCY_MS) {
  const domain = freshAuth0Domain("bench");
  await seedTenant(domain);
  // A fresh tenant: its first run exchanges a token, which the provider-call counts include.
  await configureHost(domain, { latencyMs });
  return domain;
}

async function lostEntries(domain: string, scopes: string[]): Promise<number> {
  const app = await auth0Client(domain, APP_CLIENT);
  if (!app) throw new Error("application missing");
  let lost = 0;
  for (const s of scopes) {
    const host = `https://${s}.preview.example.com`;
    if (!app.callbacks.includes(`${host}/callback`)) lost++;
    if (!app.allowed_logout_urls.includes(`${host}/`)) lost++;
    if (!app.web_origins.includes(host)) lost++;
  }
  return lost;
}

/** Parent locks on with write combining off (the serial bound's case) or on; the control has neither. */
type Mode = { parentLocks: boolean; combining: boolean };

async function contended(k: number, mode: Mode) {
  const domain = await world();
  const plan = previewPlan(domain);
  const scopes = Array.from({ length: k }, () => `pr-${++base}`);
  // The locks alone: provider budgets are measured by budget.bench.test.ts.
  const engine = createEngine(testEnv(env), emulatorTransport, {
    controls: { parentLocks: mode.parentLocks },
    combining: mode.combining,
    sharedBudgets: false,
  });
  const before = await emulatorStub(domain).stats();
  const start = now();
  const runs = await Promise.all(
    scopes.map((scope) =>
      engine.apply({
        repository: DEFAULT_REPOSITORY,
        environment: "preview",
        scope,
        plan,
        wait: true,
        waitTimeoutMs: 600_000,
      }),
    ),
  );
  const wallMs = now() - start;
  const after = await emulatorStub(domain).stats();
  const failed = runs.filter((r) => r.run.status !== "succeeded").length;
  return {
    wallMs,
    calls: after.requests - before.requests,
    writes: after.writes - before.writes,
    failed,
    lost: await lostEntries(domain, scopes),
  };
}

it("contended apply: K scopes × 3 entries on one Auth0 application", async () => {
  const rows = [];
  let combinedK1 = Number.NaN;
  for (const k of KS) {
    const locked = [];
    const combined = [];
    const control = [];
    for (let r = 0; r < REPS; r++) {
      locked.push(await contended(k, { parentLocks: true, combining: false }));
      combined.push(await contended(k, { parentLocks: true, combining: true }));
      control.push(await contended(k, { parentLocks: false, combining: false }));
    }
    const callsPerRun = locked[0] ? locked[0].calls / k : 0;
    // Inside a run's one critical section: the read under the lease and the write. The rest
    // (token, the read before the lease) overlaps across runs, so it counts once.
    const insidePerRun = locked[0] ? (2 * locked[0].writes) / k : 0;
    const floorMs = callsPerRun * LATENCY_MS;
    const serialBoundMs = (callsPerRun - insidePerRun + k * insidePerRun) * LATENCY_MS;
    const wall = summary(locked.map((x) => x.wallMs));
    const combinedWall = summary(combined.map((x) => x.wallMs));
    if (k === 1) combinedK1 = combinedWall.median;
    rows.push({
      k,
      reps: REPS,
      latencyMs: LATENCY_MS,
      callsPerRun,
      writesPerRun: locked[0] ? locked[0].writes / k : 0,
      floorMs,
      serialBoundMs,
      wallMs: wall,
      wallOverSerialBound: wall.median / serialBoundMs,
      lost: Math.max(...locked.map((x) => x.lost), ...combined.map((x) => x.lost)),
      failed: Math.max(...locked.map((x) => x.failed), ...combined.map((x) => x.failed)),
      combining: {
        wallMs: combinedWall,
        writes: summary(combined.map((x) => x.writes)),
        callsPerRun: combined[0] ? combined[0].calls / k : 0,
        wallOverK1: combinedWall.median / combinedK1,
        lost: Math.max(...combined.map((x) => x.lost)),
      },
      controlWallMs: summary(control.map((x) => x.wallMs)),
      controlLost: summary(control.map((x) => x.lost)),
    });
  }
  report("runtime.contended", rows);
});

it("independent objects: K scopes on K different applications", async () => {
  const rows = [];
  for (const k of KS) {
    const walls = [];
    for (let r = 0; r < REPS; r++) {
      const domains = await Promise.all(Array.from({ length: k }, () => world()));
      // Plans first: each registers its tenant's connection, which the engine reads when made.
      const plans = domains.map((d) => previewPlan(d));
      const engine = createEngine(testEnv(env), emulatorTransport, { sharedBudgets: false });
      const start = now();
      await Promise.all(
        plans.map((plan) =>
          engine.apply({
            repository: DEFAULT_REPOSITORY,
            environment: "preview",
            scope: `pr-${++base}`,
            plan,
          }),
        ),
      );
      walls.push(now() - start);
    }
    rows.push({ k, reps: REPS, wallMs: summary(walls) });
  }
  report("runtime.independent", rows);
});

it("steady state: re-applying an unchanged 100-line plan", async () => {
  const domain = await world(0);
  const plan: Plan = auth0Plan(
    domain,
    Array.from({ length: 100 }, (_, i) => ({
      id: `cb${i}`,
      op: "auth0.callbackUrl",
      url: `https://{scope}.preview.example.com/cb/${i}`,
    })),
  );
  const scope = `pr-${++base}`;
  const engine = createEngine(testEnv(env), emulatorTransport, { sharedBudgets: false });
  const first = await engine.apply({ repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan });
  if (first.run.status !== "succeeded") throw new Error(JSON.stringify(first.run.error));
  const key = await appLockKey(domain);
  const tokens = async () => (await lockStub(env, key).read({ key })).lastToken;
  const writes = async () => (await emulatorStub(domain).stats()).writes;
  const [t0, w0] = [await tokens(), await writes()];
  const times = [];
  for (let r = 0; r < Math.max(10, REPS * 5); r++) {
    const start = now();
    const again = await engine.apply({ repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan });
    times.push(now() - start);
    if (again.lines.some((l) => l.result !== "unchanged")) throw new Error("plan was not unchanged");
  }
  report("runtime.steady", {
    lines: 100,
    parentLockOps: (await tokens()) - t0,
    providerWrites: (await writes()) - w0,
    scopeLeasesPerRun: 1,
    wallMs: summary(times),
  });
});
