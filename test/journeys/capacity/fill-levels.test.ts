/**
 * Issue 32, "Capacity is visible": a write under the parent lease records each capped list's fill
 * (op, cap, entries, when) on the parent lock object, carried by the release the run makes anyway
 * (no extra provider or lock call). `GET /v1/locks/{key}` answers it; the sweep reports a list above
 * 80 % of its cap and sends `list-near-capacity` once per crossing (docs/operations.md).
 */
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../shared/env";
import type { Plan } from "../../../shared/schemas/plan";
import { lockStub } from "../../../workers/locks/lock-target";
import { sweepAndReport } from "../../../workers/sweep/sweep-handler";
import { entraTenant } from "../../adapters/entra/entra-tenant";
import { call, testApp } from "../../helpers/app";
import { connectionOf, registerConnection } from "../../helpers/connections";
import { freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { appLockKey } from "../../helpers/engine";
import { APP_CLIENT, SECRET_NAME, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const app = testApp();
const DAY_MS = 86_400_000;

async function cappedTenant(prefix: string, kept: string[], cap: number | null) {
  const domain = freshAuth0Domain(prefix);
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { callbacks: kept } } });
  const connection = registerConnection(`auth0-fill-${domain}`, {
    type: "auth0",
    config: { domain, clientId: TEST_M2M.clientId },
    secrets: { clientSecret: SECRET_NAME },
    ...(cap === null ? {} : { capacity: { "auth0.callbackUrl": cap } }),
  });
  const plan: Plan = {
    version: 2,
    lines: [
      {
        id: "cb",
        op: "auth0.callbackUrl",
        connection,
        params: { client: APP_CLIENT, url: "https://{scope}.preview.example.com/cb" },
      },
    ],
  };
  return { domain, plan, key: await appLockKey(domain) };
}

async function applyScope(plan: Plan, requests: string[] = []) {
  const result = await testEngine({ requests }).apply({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope: `pr-${Math.floor(Math.random() * 1e6)}`,
    plan,
    wait: true,
    waitTimeoutMs: 30_000,
  });
  expect(result.run.status).toBe("succeeded");
  return result;
}

const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://kept-${i}.example.com/cb`);

describe("a capped list's fill level", () => {
  it("is recorded by the write under the lease and answered by the lock detail, with its cap", async () => {
    const { plan, key } = await cappedTenant("fill", urls(2), 10);
    const before = Date.now();
    const requests: string[] = [];
    await applyScope(plan, requests);
    const res = await call(app, "GET", `/v1/locks/${encodeURIComponent(key)}`);
    expect(res.status).toBe(200);
    const state = (await res.json()) as { fills?: Array<Record<string, unknown>> };
    expect(state.fills).toEqual([{ op: "auth0.callbackUrl", cap: 10, entries: 3, at: expect.any(Number) }]);
    expect(state.fills?.[0]?.at as number).toBeGreaterThanOrEqual(before);
    // Counted from the one read under the lease the write needs anyway: no provider call added.
    expect(requests.filter((r) => r.startsWith("GET ") && r.includes(`/clients/${APP_CLIENT}`))).toHaveLength(
      1,
    );
    expect(requests.filter((r) => r.startsWith("PATCH "))).toHaveLength(1);
  });

  it("a list without a cap (callbacks: none documented, none configured) records no fill level", async () => {
    const { plan, key } = await cappedTenant("nofill", urls(1), null);
    await applyScope(plan);
    const res = await call(app, "GET", `/v1/locks/${encodeURIComponent(key)}`);
    expect(res.status).toBe(200);
    const state = (await res.json()) as { fills?: unknown; lastToken: number };
    expect(state.lastToken).toBeGreaterThan(0);
    expect(state.fills).toBeUndefined();
  });
});

describe("the sweep's report of lists near their cap", () => {
  it("reports a list above 80 % and notifies once per crossing; a list at 80 % or below is not reported", async () => {
    const near = await cappedTenant("near", urls(8), 10); // 9 of 10 after the write
    const below = await cappedTenant("below", urls(6), 10); // 7 of 10
    await applyScope(near.plan);
    await applyScope(below.plan);
    const told: Array<{ kind: string; id: string; subject: Record<string, unknown> }> = [];
    const notifications = {
      send: async (body: { kind: string; id: string; subject: Record<string, unknown> }) => {
        told.push(body);
      },
    } as unknown as Queue;
    const sweepEnv = { ...env, NOTIFY_QUEUE: notifications } as Env;
    const parts = {
      resolveStaleIntents: async () => ({ resolved: 0 }),
      orphans: async () => ({ orphans: [], problems: [] }),
      scopesOwningEntries: async () => [],
    };
    const at = createScheduledController({ scheduledTime: Date.now() });
    const report = await sweepAndReport(at, sweepEnv, parts);
    const ours = (lock: string) => told.filter((n) => n.subject.lock === lock);
    expect(ours(near.key)).toEqual([
      expect.objectContaining({
        kind: "list-near-capacity",
        subject: expect.objectContaining({ lock: near.key, op: "auth0.callbackUrl", cap: 10, entries: 9 }),
      }),
    ]);
    expect(ours(below.key)).toEqual([]);
    expect(report.nearCapacity?.ok).toBe(true);
    await sweepAndReport(at, sweepEnv, parts);
    expect(ours(near.key).length).toBe(1); // still above: not told again
  });

  it("a kind switched off is not sent, and the list is still reported", async () => {
    const near = await cappedTenant("near-off", urls(9), 10);
    await applyScope(near.plan);
    const told: unknown[] = [];
    const notifications = { send: async (body: unknown) => void told.push(body) } as unknown as Queue;
    const sweepEnv = {
      ...env,
      NOTIFY_QUEUE: notifications,
      SPONSON_NOTIFY: JSON.stringify({ kinds: { "list-near-capacity": false } }),
    } as Env;
    const parts = {
      resolveStaleIntents: async () => ({ resolved: 0 }),
      orphans: async () => ({ orphans: [], problems: [] }),
      scopesOwningEntries: async () => [],
    };
    const report = await sweepAndReport(
      createScheduledController({ scheduledTime: Date.now() }),
      sweepEnv,
      parts,
    );
    expect(told).toEqual([]);
    const lists = report.nearCapacity?.ok ? report.nearCapacity.value : [];
    expect(lists.filter((l) => l.lock === near.key)).toEqual([
      expect.objectContaining({ lock: near.key, op: "auth0.callbackUrl", cap: 10, entries: 10 }),
    ]);
  });

  it("a claim whose sweep died before sending lapses after a day: a later sweep tells", async () => {
    const near = await cappedTenant("near-dead", urls(8), 10);
    await applyScope(near.plan);
    const now = Date.now();
    // A sweep that claimed the notice and died: nothing was sent, nothing given back.
    const claimed = await lockStub(env, near.key).nearCapacity({ key: near.key, now });
    expect(claimed).toEqual([expect.objectContaining({ op: "auth0.callbackUrl", notify: true })]);
    const told: Array<{ kind: string; subject: Record<string, unknown> }> = [];
    const notifications = {
      send: async (body: { kind: string; subject: Record<string, unknown> }) => {
        told.push(body);
      },
    } as unknown as Queue;
    const sweepEnv = { ...env, NOTIFY_QUEUE: notifications } as Env;
    const parts = {
      resolveStaleIntents: async () => ({ resolved: 0 }),
      orphans: async () => ({ orphans: [], problems: [] }),
      scopesOwningEntries: async () => [],
    };
    const ours = () => told.filter((n) => n.subject.lock === near.key);
    // Within the day the claim holds: another sweep does not tell (it may still be sending).
    await sweepAndReport(createScheduledController({ scheduledTime: now + 3_600_000 }), sweepEnv, parts);
    expect(ours()).toEqual([]);
    await sweepAndReport(createScheduledController({ scheduledTime: now + 2 * DAY_MS }), sweepEnv, parts);
    expect(ours()).toEqual([expect.objectContaining({ kind: "list-near-capacity" })]);
    // Told and confirmed: days later, still above, not told again.
    await sweepAndReport(createScheduledController({ scheduledTime: now + 5 * DAY_MS }), sweepEnv, parts);
    expect(ours()).toHaveLength(1);
  });
});

describe("a cap that counts the whole object (Entra: every platform's redirect URIs)", () => {
  it("records the measured fill with the application's cap, and the sweep reports it near capacity", async () => {
    const t = await entraTenant({
      spa: Array.from({ length: 250 }, (_, i) => `https://kept-${i}.example.com/`),
    });
    const connection = connectionOf(`fill-entra-${t.tenantId}`, {
      type: "entra",
      tenant: t.domain,
      clientId: t.clientId,
      clientSecret: { secret: "FILL_ENTRA" },
    });
    const plan: Plan = {
      version: 2,
      lines: [
        {
          id: "spa",
          op: "entra.redirectUri",
          connection,
          params: t.params("spa", "https://{scope}.example.com/"),
        },
      ],
    };
    const result = await testEngine({ bindings: { FILL_ENTRA: t.secret } }).apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope: `pr-${Math.floor(Math.random() * 1e6)}`,
      plan,
      wait: true,
      waitTimeoutMs: 30_000,
    });
    expect(result.run.status).toBe("succeeded");
    const told: Array<{ kind: string; subject: Record<string, unknown> }> = [];
    const notifications = {
      send: async (body: { kind: string; subject: Record<string, unknown> }) => void told.push(body),
    } as unknown as Queue;
    const report = await sweepAndReport(
      createScheduledController({ scheduledTime: Date.now() }),
      { ...env, NOTIFY_QUEUE: notifications } as Env,
      {
        resolveStaleIntents: async () => ({ resolved: 0 }),
        orphans: async () => ({ orphans: [], problems: [] }),
        scopesOwningEntries: async () => [],
      },
    );
    const ours = <T extends { identity?: unknown; subject?: Record<string, unknown> }>(l: T) =>
      String(l.identity ?? l.subject?.identity ?? "").includes(t.application);
    const lists = report.nearCapacity?.ok ? report.nearCapacity.value : [];
    expect(lists.filter(ours)).toEqual([
      expect.objectContaining({ op: "entra.redirectUri", cap: 256, entries: 251 }),
    ]);
    const key = lists.find(ours)?.lock as string;
    const res = await call(app, "GET", `/v1/locks/${encodeURIComponent(key)}`);
    expect(((await res.json()) as { fills?: unknown }).fills).toEqual([
      { op: "entra.redirectUri", cap: 256, entries: 251, at: expect.any(Number) },
    ]);
    expect(told.filter(ours)).toEqual([
      expect.objectContaining({ kind: "list-near-capacity", subject: expect.objectContaining({ cap: 256 }) }),
    ]);
  }, 60_000);
});
