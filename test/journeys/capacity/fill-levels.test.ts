/**
 * Issue 32, "Capacity is visible": a write under the parent lease records each capped list's fill
 * (op, cap, entries, when) on the parent lock object, carried by the release the run makes anyway
 * (no extra provider or lock call). `GET /v1/locks/{key}` answers it; the sweep reports a list above
 * 80 % of its cap and sends `list-near-capacity` once per crossing (docs/operations.md).
 */
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Env } from "../../../shared/env";
import { ownedObjectKey } from "../../../shared/lock-index";
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
    // With each repository's share of the list, as the lock's ownership counts it when read.
    const share = [{ id: DEFAULT_REPOSITORY.id, name: DEFAULT_REPOSITORY.name, entries: 1 }];
    expect(state.fills).toEqual([
      { op: "auth0.callbackUrl", cap: 10, entries: 3, at: expect.any(Number), repositories: share },
    ]);
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
    const lists = report.nearCapacity?.ok ? report.nearCapacity.value.lists : [];
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

/** The lock namespace as the sweep sees it, whose `broken` lock fails every call of `method`. */
function failingAt(broken: string, method: string, message: string) {
  const ns = env.LEASE_LOCK;
  const brokenId = ns.idFromName(broken);
  const namespace = new Proxy(ns, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (prop !== "get" || typeof value !== "function") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (id: DurableObjectId) => {
        const real = ns.get(id);
        if (!id.equals(brokenId)) return real;
        return new Proxy(real, {
          get(stubTarget, name) {
            if (name !== method) return Reflect.get(stubTarget, name);
            return async () => {
              throw new Error(message);
            };
          },
        });
      };
    },
  });
  return namespace as typeof env.LEASE_LOCK;
}

/** The index lists in key order: the first answered is asked first, the other after it. */
function askedInOrder<T extends { key: string }>(a: T, b: T): [T, T] {
  return ownedObjectKey(a.key) < ownedObjectKey(b.key) ? [a, b] : [b, a];
}

const quietParts = {
  resolveStaleIntents: async () => ({ resolved: 0 }),
  orphans: async () => ({ orphans: [], problems: [] }),
  scopesOwningEntries: async () => [],
};

function recordingQueue(fail: (body: { subject: Record<string, unknown> }) => boolean = () => false) {
  const told: Array<{ kind: string; subject: Record<string, unknown> }> = [];
  const queue = {
    send: async (body: { kind: string; subject: Record<string, unknown> }) => {
      if (fail(body)) throw new Error("Queue send failed: 503");
      told.push(body);
    },
  } as unknown as Queue;
  return { told, queue };
}

describe("the near-capacity sweep past a failure (issue 32, review finding L9)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("a lock that cannot be read is named unreadable; the locks after it are still asked, reported and told", async () => {
    const a = await cappedTenant("near-broken-a", urls(8), 10);
    const b = await cappedTenant("near-broken-b", urls(8), 10);
    await applyScope(a.plan);
    await applyScope(b.plan);
    const [broken, healthy] = askedInOrder(a, b);
    const secret = env.AUTH0_CLIENT_SECRET as string;
    const { told, queue } = recordingQueue();
    const sweepEnv = {
      ...env,
      NOTIFY_QUEUE: queue,
      // An error text that echoes a secret: the warning and the report must not.
      LEASE_LOCK: failingAt(broken.key, "nearCapacity", `Network connection lost (${secret})`),
    } as Env;
    const warnings: string[] = [];
    vi.spyOn(console, "warn").mockImplementation((line: unknown) => void warnings.push(String(line)));
    const logs: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void logs.push(String(line)));
    const now = Date.now();
    const report = await sweepAndReport(
      createScheduledController({ scheduledTime: now }),
      sweepEnv,
      quietParts,
    );

    expect(report.nearCapacity?.ok).toBe(true);
    const value = report.nearCapacity?.ok ? report.nearCapacity.value : undefined;
    expect(value?.unreadable).toEqual([
      {
        lock: broken.key,
        identity: expect.any(String),
        error: expect.stringContaining("Network connection lost"),
      },
    ]);
    expect(value?.lists.filter((l) => l.lock === healthy.key)).toEqual([
      expect.objectContaining({ op: "auth0.callbackUrl", cap: 10, entries: 9 }),
    ]);
    expect(value?.lists.filter((l) => l.lock === broken.key)).toEqual([]);
    const about = (lock: string) => told.filter((n) => n.subject.lock === lock);
    expect(about(healthy.key)).toHaveLength(1);
    expect(about(broken.key)).toEqual([]);
    const unreadable = warnings
      .map((w) => JSON.parse(w))
      .filter((w) => w.event === "near-capacity-unreadable");
    expect(unreadable).toEqual([
      expect.objectContaining({ lock: broken.key, identity: value?.unreadable[0]?.identity }),
    ]);
    expect(warnings.map((w) => JSON.parse(w))).toContainEqual(
      expect.objectContaining({ event: "list-near-capacity", lock: healthy.key, entries: 9 }),
    );
    for (const line of [...warnings, ...logs]) expect(line).not.toContain(secret);

    // Nothing of the broken lock was claimed: once it answers, the next sweep tells.
    await sweepAndReport(
      createScheduledController({ scheduledTime: now + 60_000 }),
      { ...env, NOTIFY_QUEUE: queue } as Env,
      quietParts,
    );
    expect(about(broken.key)).toHaveLength(1);
    expect(about(healthy.key)).toHaveLength(1);
  });

  it("a lock whose sent notice cannot be confirmed is named; its list is reported and the locks after it are told", async () => {
    const a = await cappedTenant("near-unconfirmed-a", urls(8), 10);
    const b = await cappedTenant("near-unconfirmed-b", urls(8), 10);
    await applyScope(a.plan);
    await applyScope(b.plan);
    const [broken, healthy] = askedInOrder(a, b);
    const { told, queue } = recordingQueue();
    const sweepEnv = {
      ...env,
      NOTIFY_QUEUE: queue,
      LEASE_LOCK: failingAt(
        broken.key,
        "confirmNearCapacity",
        "Durable Object reset because its code was updated.",
      ),
    } as Env;
    const warnings: string[] = [];
    vi.spyOn(console, "warn").mockImplementation((line: unknown) => void warnings.push(String(line)));
    const now = Date.now();
    const report = await sweepAndReport(
      createScheduledController({ scheduledTime: now }),
      sweepEnv,
      quietParts,
    );

    const value = report.nearCapacity?.ok ? report.nearCapacity.value : undefined;
    expect(value?.claimsLeft).toEqual([
      {
        lock: broken.key,
        identity: expect.any(String),
        error: expect.stringContaining("Durable Object reset"),
      },
    ]);
    expect(value?.unreadable).toEqual([]);
    const ours = value?.lists.filter((l) => l.lock === broken.key || l.lock === healthy.key);
    expect(ours).toHaveLength(2);
    const about = (lock: string) => told.filter((n) => n.subject.lock === lock);
    expect(about(broken.key)).toHaveLength(1);
    expect(about(healthy.key)).toHaveLength(1);
    expect(warnings.map((w) => JSON.parse(w))).toContainEqual(
      expect.objectContaining({ event: "near-capacity-claims-left", lock: broken.key }),
    );

    // The unconfirmed claim lapses after a day (told again); the confirmed one is never told again.
    const later = { ...env, NOTIFY_QUEUE: queue } as Env;
    await sweepAndReport(createScheduledController({ scheduledTime: now + 2 * DAY_MS }), later, quietParts);
    expect(about(broken.key)).toHaveLength(2);
    expect(about(healthy.key)).toHaveLength(1);
  });

  it("a give-back that fails does not keep the lock's sent notice from being confirmed", async () => {
    const domain = freshAuth0Domain("near-two-lists");
    const kept = urls(8);
    await seedAuth0Tenant(domain, {
      m2m: TEST_M2M,
      clients: { [APP_CLIENT]: { callbacks: kept, allowed_logout_urls: kept } },
    });
    const connection = registerConnection(`auth0-fill-${domain}`, {
      type: "auth0",
      config: { domain, clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
      capacity: { "auth0.callbackUrl": 10, "auth0.logoutUrl": 10 },
    });
    const url = "https://{scope}.preview.example.com/cb";
    await applyScope({
      version: 2,
      lines: [
        { id: "cb", op: "auth0.callbackUrl", connection, params: { client: APP_CLIENT, url } },
        { id: "logout", op: "auth0.logoutUrl", connection, params: { client: APP_CLIENT, url } },
      ],
    });
    const key = await appLockKey(domain);
    // The logout notice fails to send; giving its claim back fails too. The callback one is sent.
    let failing = true;
    const { told, queue } = recordingQueue(
      (body) => failing && body.subject.lock === key && body.subject.op === "auth0.logoutUrl",
    );
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const now = Date.now();
    const report = await sweepAndReport(
      createScheduledController({ scheduledTime: now }),
      {
        ...env,
        NOTIFY_QUEUE: queue,
        LEASE_LOCK: failingAt(key, "unclaimNearCapacity", "Network connection lost."),
      } as Env,
      quietParts,
    );
    const value = report.nearCapacity?.ok ? report.nearCapacity.value : undefined;
    expect(value?.claimsLeft).toEqual([expect.objectContaining({ lock: key })]);
    const about = (op: string) => told.filter((n) => n.subject.lock === key && n.subject.op === op);
    expect(about("auth0.callbackUrl")).toHaveLength(1);
    expect(about("auth0.logoutUrl")).toEqual([]);

    // Two days on: the logout claim (never given back) has lapsed and is told; the callback one was
    // confirmed despite the failed give-back, so it is not told again.
    failing = false;
    const later = { ...env, NOTIFY_QUEUE: queue } as Env;
    await sweepAndReport(createScheduledController({ scheduledTime: now + 2 * DAY_MS }), later, quietParts);
    expect(about("auth0.logoutUrl")).toHaveLength(1);
    expect(about("auth0.callbackUrl")).toHaveLength(1);
  });

  it("a notice whose send throws gives its claim back: the next sweep sends it", async () => {
    const near = await cappedTenant("near-send-fails", urls(8), 10);
    await applyScope(near.plan);
    let failing = true;
    const { told, queue } = recordingQueue((body) => failing && body.subject.lock === near.key);
    const sweepEnv = { ...env, NOTIFY_QUEUE: queue } as Env;
    vi.spyOn(console, "error").mockImplementation(() => {});
    const about = () => told.filter((n) => n.subject.lock === near.key);
    const now = Date.now();
    const first = await sweepAndReport(
      createScheduledController({ scheduledTime: now }),
      sweepEnv,
      quietParts,
    );
    expect(about()).toEqual([]);
    // Still reported: the list is above 80 % whether or not the notice went out.
    const lists = first.nearCapacity?.ok ? first.nearCapacity.value.lists : [];
    expect(lists.filter((l) => l.lock === near.key)).toHaveLength(1);
    failing = false;
    // Well within the day a kept claim would hold off other sweeps.
    await sweepAndReport(createScheduledController({ scheduledTime: now + 60_000 }), sweepEnv, quietParts);
    expect(about()).toEqual([expect.objectContaining({ kind: "list-near-capacity" })]);
    await sweepAndReport(createScheduledController({ scheduledTime: now + 120_000 }), sweepEnv, quietParts);
    expect(about()).toHaveLength(1);
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
    const lists = report.nearCapacity?.ok ? report.nearCapacity.value.lists : [];
    expect(lists.filter(ours)).toEqual([
      expect.objectContaining({ op: "entra.redirectUri", cap: 256, entries: 251 }),
    ]);
    const key = lists.find(ours)?.lock as string;
    const res = await call(app, "GET", `/v1/locks/${encodeURIComponent(key)}`);
    expect(((await res.json()) as { fills?: unknown }).fills).toEqual([
      {
        op: "entra.redirectUri",
        cap: 256,
        entries: 251,
        at: expect.any(Number),
        repositories: [{ id: DEFAULT_REPOSITORY.id, name: DEFAULT_REPOSITORY.name, entries: 1 }],
      },
    ]);
    expect(told.filter(ours)).toEqual([
      expect.objectContaining({ kind: "list-near-capacity", subject: expect.objectContaining({ cap: 256 }) }),
    ]);
  }, 60_000);
});
