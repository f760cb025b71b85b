/**
 * Destructive admin actions are audited before they act (docs/design.md, "Audit before acting"): a
 * force-release or an orphan removal first writes its intent to the R2 audit trail; when that put
 * fails the action is refused (503 AUDIT_UNAVAILABLE, retriable) and nothing is released or
 * removed; after the action the same record is completed with its outcome; an intent never
 * completed (the completion put failed) is still listed, as "started, outcome not recorded".
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AuditTrail } from "../../workers/dashboard/audit-trail";
import { apply, call, testApp } from "../helpers/app";
import { auth0Client, emulatorStub, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { appIdentity, freshPr } from "../helpers/engine";
import { freshScopeKey, granted, stub } from "../helpers/locks";
import { APP_CLIENT, auth0Plan, seedTenant, TEST_M2M } from "../helpers/plans";

const app = testApp();
const TTL_MS = 30_000;
const BY_HAND = "https://someone.preview.example.com/callback";

/**
 * R2 as the routes see it, whose puts under `audit/` fail like a dropped connection: every one
 * (`failFrom: 1`) or from the second on (`failFrom: 2`: the intent lands, its completion does not).
 */
function auditPutsFailing(failFrom: number) {
  let auditPuts = 0;
  const bucket = new Proxy(env.RECEIPTS, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (prop !== "put" || typeof value !== "function") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (key: string, ...rest: unknown[]) => {
        if (key.startsWith("audit/")) {
          auditPuts += 1;
          if (auditPuts >= failFrom) throw new Error("Network connection lost.");
        }
        return (value as (...a: unknown[]) => unknown).call(target, key, ...rest);
      };
    },
  });
  return { ...env, RECEIPTS: bucket } as typeof env;
}

type Entry = Record<string, unknown>;

async function auditEntries(): Promise<Entry[]> {
  const res = await call(app, "GET", "/v1/audit");
  expect(res.status).toBe(200);
  return ((await res.json()) as { entries: Entry[] }).entries;
}

const forceRelease = (key: string, reason: string, bindings = env) =>
  call(app, "DELETE", `/v1/locks/${encodeURIComponent(key)}`, { reason }, {}, bindings);

describe("force-release is audited before it acts", () => {
  it("an audit put that fails refuses it 503 AUDIT_UNAVAILABLE (retriable) and the lock stays held", async () => {
    const key = freshScopeKey("audit-down");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const res = await forceRelease(key, "stuck runner", auditPutsFailing(1));
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: 503, code: "AUDIT_UNAVAILABLE", retriable: true });
    expect(await stub(key).read({ key })).toMatchObject({ held: true, holder: "run-a", token: a.token });
    const state = await stub(key).read({ key });
    expect(state.history.some((h) => h.transition === "force-released")).toBe(false);
    expect((await auditEntries()).filter((e) => e.key === key)).toEqual([]);
  });

  it("a force-release lists one record: its intent completed with the outcome (done) and what it released", async () => {
    const key = freshScopeKey("audit-done");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const res = await forceRelease(key, "stuck runner");
    expect(res.status).toBe(200);
    const mine = (await auditEntries()).filter((e) => e.key === key);
    expect(mine).toEqual([
      expect.objectContaining({
        kind: "force-release",
        status: "done",
        released: true,
        holder: "run-a",
        token: a.token,
        reason: "stuck runner",
        id: expect.any(String),
        startedAt: expect.any(Number),
      }),
    ]);
    expect(mine[0]?.at as number).toBeGreaterThanOrEqual(mine[0]?.startedAt as number);
  });

  it("a key that is not held completes as done, released false", async () => {
    const key = freshScopeKey("audit-free");
    expect((await forceRelease(key, "just in case")).status).toBe(200);
    expect((await auditEntries()).filter((e) => e.key === key)).toEqual([
      expect.objectContaining({ status: "done", released: false, holder: null }),
    ]);
  });

  it("intent written, lock released, completion put failed: the intent is still listed as started", async () => {
    const key = freshScopeKey("audit-crash");
    granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const res = await forceRelease(key, "stuck runner", auditPutsFailing(2));
    // The lock was released: the answer says so, like any force-release.
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ released: true });
    expect((await stub(key).read({ key })).held).toBe(false);
    expect((await auditEntries()).filter((e) => e.key === key)).toEqual([
      expect.objectContaining({ kind: "force-release", status: "started", actor: expect.any(String) }),
    ]);
  });
});

/**
 * The lock namespace as the routes see it, whose lock answers its first `read` after a
 * force-release with a dropped connection: the release happened, reading it back did not.
 */
function readFailingAfterForceRelease() {
  let released = false;
  const ns = env.LEASE_LOCK;
  const namespace = new Proxy(ns, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (prop !== "get" || typeof value !== "function") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (id: DurableObjectId) => {
        const real = ns.get(id) as unknown as Record<string, (req: unknown) => Promise<unknown>>;
        return new Proxy(real, {
          get(stubTarget, method) {
            if (typeof method !== "string") return Reflect.get(stubTarget, method);
            // RPC methods are called on the stub itself (a stub's `fn.call` would be a remote "call").
            return async (req: unknown) => {
              if (method === "read" && released) {
                released = false;
                throw new Error("Network connection lost.");
              }
              const answer = await (stubTarget[method] as (r: unknown) => Promise<unknown>)(req);
              if (method === "forceRelease") released = true;
              return answer;
            };
          },
        });
      };
    },
  });
  return { ...env, LEASE_LOCK: namespace } as typeof env;
}

describe("a force-release whose outcome was not recorded", () => {
  it("is listed without a holder or a released flag (unknown), and the dashboard never says it was not held", async () => {
    const key = freshScopeKey("audit-unrecorded");
    granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    expect((await forceRelease(key, "stuck runner", auditPutsFailing(2))).status).toBe(200);
    const mine = (await auditEntries()).filter((e) => e.key === key);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ status: "started" });
    expect(mine[0]).not.toHaveProperty("holder");
    expect(mine[0]).not.toHaveProperty("token");
    expect(mine[0]).not.toHaveProperty("released");
    const page = await call(app, "GET", "/dashboard");
    expect(page.status).toBe(200);
    const row = (await page.text()).split("<tr>").find((r) => r.includes(key)) ?? "";
    expect(row).toContain("started, outcome not recorded");
    expect(row).not.toContain("was not held");
  });

  it("the lock read back failing after the release still answers 200 and completes the record as released", async () => {
    const key = freshScopeKey("audit-readback");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const res = await forceRelease(key, "stuck runner", readFailingAfterForceRelease());
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ released: true, reason: "released" });
    expect((await stub(key).read({ key })).held).toBe(false);
    expect((await auditEntries()).filter((e) => e.key === key)).toEqual([
      expect.objectContaining({ status: "done", released: true }),
    ]);
    expect(a.token).toBeGreaterThan(0);
  });
});

/** An application a scope owns an entry on, and an entry added by hand since: an orphan. */
async function orphanWorld() {
  const domain = freshAuth0Domain("audit");
  await seedTenant(domain);
  const scope = freshPr();
  const plan = auth0Plan(domain, [
    { id: "cb", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
  ]);
  expect((await apply(app, "preview", scope, plan)).run.status).toBe("succeeded");
  const callbacks = async () => (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
  await seedAuth0Tenant(domain, {
    m2m: TEST_M2M,
    clients: { [APP_CLIENT]: { callbacks: [...(await callbacks()), BY_HAND] } },
  });
  const body = {
    parent: appIdentity(domain),
    op: "auth0.callbackUrl",
    key: BY_HAND,
    reason: "added by hand",
  };
  const requests = async () => (await emulatorStub(domain).stats()).requests;
  return { domain, body, callbacks, requests };
}

const removeOrphan = (body: object, bindings = env) =>
  call(app, "POST", "/v1/orphans/remove", body, {}, bindings);

const removalsOf = async (parent: string) =>
  (await auditEntries()).filter((e) => e.kind === "orphan-removal" && e.parent === parent);

describe("orphan removal is audited before it acts", () => {
  it("an audit put that fails refuses it 503 AUDIT_UNAVAILABLE: no request to the provider, the entry stays", async () => {
    const w = await orphanWorld();
    const before = await w.requests();
    const res = await removeOrphan(w.body, auditPutsFailing(1));
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: "AUDIT_UNAVAILABLE", retriable: true });
    expect(await w.requests()).toBe(before);
    expect(await w.callbacks()).toContain(BY_HAND);
    expect(await removalsOf(w.body.parent)).toEqual([]);
  });

  it("a removal lists one record: its intent completed as done with the outcome", async () => {
    const w = await orphanWorld();
    const res = await removeOrphan(w.body);
    expect(res.status).toBe(200);
    expect(await w.callbacks()).not.toContain(BY_HAND);
    expect(await removalsOf(w.body.parent)).toEqual([
      expect.objectContaining({ status: "done", outcome: "removed", key: BY_HAND, reason: "added by hand" }),
    ]);
  });

  it("a refused removal (a scope owns the entry) completes its intent as refused, with the code", async () => {
    const w = await orphanWorld();
    const owned = (await w.callbacks()).find((u) => u !== BY_HAND) as string;
    const res = await removeOrphan({ ...w.body, key: owned });
    expect(res.status).toBe(409);
    expect(await w.callbacks()).toContain(owned);
    expect(await removalsOf(w.body.parent)).toEqual([
      expect.objectContaining({ status: "refused", errorCode: "CONCURRENT_MODIFICATION", key: owned }),
    ]);
  });

  it("intent written, entry removed, completion put failed: the intent is still listed as started", async () => {
    const w = await orphanWorld();
    const res = await removeOrphan(w.body, auditPutsFailing(2));
    expect(res.status).toBe(200);
    expect(await w.callbacks()).not.toContain(BY_HAND);
    expect(await removalsOf(w.body.parent)).toEqual([
      expect.objectContaining({ status: "started", key: BY_HAND, actor: expect.any(String) }),
    ]);
  });
});

describe("the dashboard's audit trail", () => {
  it("says an intent never completed was started and its outcome not recorded", () => {
    const html = String(
      AuditTrail({
        entries: [
          {
            kind: "force-release",
            key: "scope:1/preview/pr-1",
            actor: "alice",
            reason: "stuck",
            holder: null,
            token: null,
            released: false,
            at: 1_700_000_000_000,
            id: "i-1",
            startedAt: 1_700_000_000_000,
            status: "started",
          },
        ],
      }),
    );
    expect(html).toContain("started, outcome not recorded");
  });
});
