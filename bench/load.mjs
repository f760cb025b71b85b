// Load against the local service: 200 concurrent applies across 50 scopes and 10 shared Auth0
// applications (emulated demo tenants), then a preview per scope proves no entry was lost.

import { summary } from "./report.mjs";

const RUNS = 200;
const SCOPES = 50;
const OBJECTS = 10;

/** The service configuration the load needs: one connection per emulated application's tenant. */
export function loadConnections() {
  return Object.fromEntries(
    Array.from({ length: OBJECTS }, (_, object) => [
      `bench-${object}`,
      {
        type: "auth0",
        environments: ["preview"],
        config: { domain: `sponson-demo.bench${object}.us.auth0.com`, clientId: "sponson-local" },
        secrets: { clientSecret: "AUTH0_CLIENT_SECRET" },
        // The load measures the service, not a provider's budget (docs/performance.md, "Write
        // budgets" measures that): a budget no burst of it reaches, its take still made per call.
        budget: { burst: 10_000, perSecond: 10_000 },
      },
    ]),
  );
}

/** The three-line plan (callback, logout URL, web origin) on shared application `object`. */
export function plan(object) {
  const line = (id, op, url) => ({
    id,
    op,
    connection: `bench-${object}`,
    params: { client: "preview-app", url },
  });
  return {
    version: 2,
    lines: [
      line("callback", "auth0.callbackUrl", "https://pr-{pr}.preview.example.com/callback"),
      line("logout", "auth0.logoutUrl", "https://pr-{pr}.preview.example.com/"),
      line("origin", "auth0.webOrigin", "https://pr-{pr}.preview.example.com"),
    ],
  };
}

/**
 * Mean of each count over the runs that reported counts (every run does: docs/api.md, "Where a run's
 * time went").
 */
function meanCounts(all) {
  const keys = ["providerCalls", "lockOps", "storageReads", "storageWrites", "locks"];
  const out = Object.fromEntries(keys.map((k) => [k, 0]));
  for (const c of all) for (const k of keys) out[k] += (c[k] ?? 0) / all.length;
  return { ...out, runs: all.length };
}

/** `cpuMs()` reads the service's CPU time; the load's share is its difference over the runs. */
export async function loadRun(base, headers, cpuMs = () => Number.NaN) {
  const first = 100_000 + Math.floor(Math.random() * 800_000);
  const scopes = Array.from({ length: SCOPES }, (_, i) => ({
    scope: `pr-${first + i}`,
    plan: plan(i % OBJECTS),
  }));
  const statuses = {};
  const runStatus = {};
  const latencies = [];
  const counts = [];
  const lockWaitMs = [];
  const cpuBefore = cpuMs();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => {
      const { scope, plan: p } = scopes[i % SCOPES];
      const t = performance.now();
      const res = await fetch(`${base}/v1/scopes/preview/${scope}/apply`, {
        method: "POST",
        headers,
        body: JSON.stringify({ plan: p, wait: true, waitTimeoutSeconds: 300 }),
      });
      const body = await res.json().catch(() => ({}));
      latencies.push(performance.now() - t);
      // A failed run answers by its cause (docs/design.md, "Run outcomes and status codes"): a 502 is
      // a provider failure.
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (body.counts) counts.push(body.counts);
      if (body.timings) lockWaitMs.push(body.timings.scopeLockWait + body.timings.parentLockWait);
      const s = body.run?.status ?? body.code ?? "unknown";
      runStatus[s] = (runStatus[s] ?? 0) + 1;
    }),
  );
  const wallMs = performance.now() - start;
  const cpuAfter = cpuMs();
  let lost = 0;
  for (const { scope, plan: p } of scopes) {
    const res = await fetch(`${base}/v1/scopes/preview/${scope}/preview`, {
      method: "POST",
      headers,
      body: JSON.stringify({ plan: p }),
    });
    const body = await res.json();
    lost += (body.lines ?? []).filter((l) => l.diff !== "unchanged").length;
  }
  return {
    runs: RUNS,
    scopes: SCOPES,
    sharedObjects: OBJECTS,
    wallMs,
    perRunMs: summary(latencies),
    httpStatuses: statuses,
    runStatuses: runStatus,
    fiveXx: Object.entries(statuses)
      .filter(([s]) => Number(s) >= 500)
      .reduce((a, [, n]) => a + n, 0),
    entriesLost: lost,
    countsPerRun: meanCounts(counts),
    lockWaitMsPerRun: lockWaitMs.reduce((a, b) => a + b, 0) / Math.max(1, lockWaitMs.length),
    // All of workerd under wrangler dev: the Worker, its objects, R2 and the emulators (an upper bound).
    cpuMsPerRun: (cpuAfter - cpuBefore) / RUNS,
  };
}
