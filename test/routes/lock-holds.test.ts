/**
 * Holds through the API (docs/operations.md, "Holds"; docs/design.md, "Lease protocol: holds"): an admin
 * holds a scope or an object's lock with a reason and an expiry, runs that need it are refused
 * naming the hold with `Retry-After`, a run already holding the lease finishes, the hold is
 * listed and audited, lifted by DELETE; nobody but an admin can set or lift one.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { scopeLockKey } from "../../shared/lock-keys";
import type { HoldOutcome } from "../../shared/schemas/hold";
import type { LockState } from "../../shared/schemas/lock";
import type { RunResult } from "../../shared/schemas/run";
import type { AuditEntry } from "../../workers/audit/audit-trail";
import { lockStub } from "../../workers/locks/lock-target";
import { call, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { appLockKey, freshPr, holdAppLock, untilWaiters } from "../helpers/engine";
import { freshScopeKey, granted, rawStub, refused, stub } from "../helpers/locks";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { bearer, mintServiceToken } from "../helpers/tokens";

const app = testApp();
const HOUR_S = 3600;
const holdPath = (key: string) => `/v1/locks/${encodeURIComponent(key)}/hold`;

async function hold(
  key: string,
  body: unknown = { reason: "IdP migration", ttlSeconds: HOUR_S },
  headers = {},
) {
  return call(app, "POST", holdPath(key), body, headers);
}

async function auditEntries(): Promise<AuditEntry[]> {
  const res = await call(app, "GET", "/v1/audit");
  return ((await res.json()) as { entries: AuditEntry[] }).entries;
}

async function boundList(repository: string): Promise<Response> {
  const token = await mintServiceToken({ role: "viewer", repository, sub: "team" });
  return call(app, "GET", "/v1/locks", undefined, { authorization: `Bearer ${token}` });
}

function callbackPlan(domain: string) {
  return auth0Plan(domain, [
    { id: "cb", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
  ]);
}

describe("POST /v1/locks/{key}/hold", () => {
  it("an admin holds a free lock: shown on the lock, listed, audited; a run is refused naming it with Retry-After", async () => {
    const key = freshScopeKey("api-hold");
    const res = await hold(key);
    expect(res.status).toBe(200);
    const body = (await res.json()) as HoldOutcome & { lock: LockState };
    expect(body.hold).toMatchObject({ reason: "IdP migration", by: "test-admin" });
    expect(body.previous).toBeNull();
    expect(body.lock).toMatchObject({ key, held: false, hold: body.hold });

    const one = (await (await call(app, "GET", `/v1/locks/${encodeURIComponent(key)}`)).json()) as LockState;
    expect(one.hold).toEqual(body.hold);
    const list = (await (await call(app, "GET", "/v1/locks")).json()) as { locks: LockState[] };
    expect(list.locks.find((l) => l.key === key)).toMatchObject({ held: false, hold: body.hold });

    expect(await auditEntries()).toContainEqual(
      expect.objectContaining({
        kind: "hold",
        action: "set",
        key,
        actor: "test-admin",
        reason: "IdP migration",
      }),
    );
    const error = refused(await stub(key).acquire({ key, holder: "run-b", ttlMs: 30_000 }));
    expect(error.detail?.holder).toEqual({
      hold: { reason: "IdP migration", by: "test-admin", until: body.hold?.until },
    });
  });

  it("an apply on a held scope is refused 409 LOCK_HELD naming the hold, with Retry-After and what to do", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
    expect((await hold(key)).status).toBe(200);
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, { plan: callbackPlan(domain) });
    expect(res.status).toBe(409);
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(HOUR_S - 10);
    expect(retryAfter).toBeLessThanOrEqual(HOUR_S);
    const problem = (await res.json()) as { code: string; detail: string; holder: unknown };
    expect(problem.code).toBe("LOCK_HELD");
    expect(problem.holder).toMatchObject({ hold: { reason: "IdP migration", by: "test-admin" } });
    expect(problem.detail).toContain(`sponson unhold ${key}`);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  });

  it("an object's hold fails the run's line with LOCK_HELD naming the hold", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const parent = await appLockKey(domain);
    expect((await hold(parent)).status).toBe(200);
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, {
      plan: callbackPlan(domain),
    });
    const result = (await res.json()) as RunResult;
    expect(result.run.status).toBe("failed");
    expect(result.run.error?.code).toBe("LOCK_HELD");
    expect(result.run.error?.detail?.holder).toMatchObject({ hold: { reason: "IdP migration" } });
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  });

  it("set while a run holds the scope lease: that run finishes and writes; the next run is refused", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
    // The run takes its scope lease, then waits for the application's lock held by another run.
    const other = await holdAppLock(domain);
    const running = call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: callbackPlan(domain),
      wait: true,
      waitTimeoutSeconds: 30,
    });
    await untilWaiters(other.key, 1);
    expect((await lockStub(env, key).read({ key })).held).toBe(true);
    expect((await hold(key)).status).toBe(200);
    await other.release();
    const first = (await (await running).json()) as RunResult;
    expect(first.run.status).toBe("succeeded");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([
      `https://${scope}.preview.example.com/callback`,
    ]);
    const next = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, { plan: callbackPlan(domain) });
    expect(next.status).toBe(409);
    expect(((await next.json()) as { holder: unknown }).holder).toMatchObject({ hold: { by: "test-admin" } });
  });

  it.each([
    ["no reason", { ttlSeconds: HOUR_S }],
    ["an empty reason", { reason: "  ", ttlSeconds: HOUR_S }],
    ["a reason of two lines", { reason: "a\nb", ttlSeconds: HOUR_S }],
    ["a reason too long", { reason: "x".repeat(501), ttlSeconds: HOUR_S }],
    ["no ttl", { reason: "r" }],
    ["a ttl under a minute", { reason: "r", ttlSeconds: 59 }],
    ["a ttl over 30 days", { reason: "r", ttlSeconds: 30 * 24 * HOUR_S + 1 }],
    ["a fractional ttl", { reason: "r", ttlSeconds: 90.5 }],
    ["a ttl as text", { reason: "r", ttlSeconds: "3600" }],
    ["an unknown field", { reason: "r", ttlSeconds: HOUR_S, until: 0 }],
  ])("refuses %s with 400 and holds nothing", async (_what, body) => {
    const key = freshScopeKey("bad-hold");
    const res = await hold(key, body);
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { code: string; issues?: unknown[] };
    expect(problem.code).toBe("VALIDATION");
    // The body was refused (not the path): the problem names the fields.
    expect(problem.issues?.length).toBeGreaterThan(0);
    expect((await lockStub(env, key).read({ key })).hold).toBeUndefined();
  });

  it("refuses a key that is not a lock key with 404", async () => {
    const res = await hold("not-a-lock");
    expect(res.status).toBe(404);
  });

  it.each(["viewer", "ci"] as const)("as %s is refused 403 role.admin, and nothing changes", async (role) => {
    const key = freshScopeKey("forbidden");
    const headers = await bearer(role, role === "ci" ? ["*/*"] : undefined);
    const res = await hold(key, undefined, headers);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { rule: string }).rule).toBe("role.admin");
    expect((await lockStub(env, key).read({ key })).hold).toBeUndefined();
    // Nor may they lift an admin's hold.
    expect((await hold(key)).status).toBe(200);
    const lift = await call(app, "DELETE", holdPath(key), undefined, headers);
    expect(lift.status).toBe(403);
    expect((await lockStub(env, key).read({ key })).hold).toMatchObject({ by: "test-admin" });
  });
});

describe("a run that waits for a held lock", () => {
  async function waitingApply() {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
    expect((await hold(key)).status).toBe(200);
    const running = call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: callbackPlan(domain),
      wait: true,
      waitTimeoutSeconds: 60,
    });
    await untilWaiters(key, 1);
    return { domain, scope, key, running };
  }

  it("is granted once the hold ends by itself (the alarm at its end), and writes", async () => {
    const { domain, scope, key, running } = await waitingApply();
    await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
      state.storage.sql.exec("UPDATE holds SET until = ? WHERE until > ?", Date.now() - 1, Date.now());
    });
    await runDurableObjectAlarm(rawStub(key));
    const result = (await (await running).json()) as RunResult;
    expect(result.run.status).toBe("succeeded");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([
      `https://${scope}.preview.example.com/callback`,
    ]);
    expect(await auditEntries()).toContainEqual(
      expect.objectContaining({ kind: "hold", action: "expire", key }),
    );
  });

  it("is granted when an admin lifts the hold", async () => {
    const { key, running } = await waitingApply();
    expect((await call(app, "DELETE", holdPath(key))).status).toBe(200);
    const result = (await (await running).json()) as RunResult;
    expect(result.run.status).toBe("succeeded");
  });
});

describe("a held lock in the listing", () => {
  it("a viewer bound to one repository sees a held object its scopes have entries on, nobody holding it", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const apply = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, {
      plan: callbackPlan(domain),
    });
    expect(apply.status).toBe(200);
    const parent = await appLockKey(domain);
    expect((await hold(parent)).status).toBe(200);
    const { locks } = (await (await boundList(DEFAULT_REPOSITORY.name)).json()) as { locks: LockState[] };
    expect(locks.find((l) => l.key === parent)).toMatchObject({
      held: false,
      hold: { reason: "IdP migration", by: "test-admin" },
    });
  });

  it("a held object no scope of the repository uses is not listed for it (docs/security.md)", async () => {
    const parent = await appLockKey(freshAuth0Domain());
    expect((await hold(parent)).status).toBe(200);
    const { locks } = (await (await boundList(DEFAULT_REPOSITORY.name)).json()) as { locks: LockState[] };
    expect(locks.map((l) => l.key)).not.toContain(parent);
    // Control: an unbound viewer lists it.
    const all = (await (await call(app, "GET", "/v1/locks", undefined, await bearer("viewer"))).json()) as {
      locks: LockState[];
    };
    expect(all.locks.map((l) => l.key)).toContain(parent);
  });
});

describe("DELETE /v1/locks/{key}/hold", () => {
  it("lifts the hold: audited, unlisted, and the next run is granted", async () => {
    const key = freshScopeKey("lift");
    const set = (await (await hold(key)).json()) as HoldOutcome;
    const res = await call(app, "DELETE", holdPath(key));
    expect(res.status).toBe(200);
    const body = (await res.json()) as HoldOutcome & { lock: LockState };
    expect(body).toMatchObject({ hold: null, previous: set.hold });
    expect(body.lock.hold).toBeUndefined();
    expect(await auditEntries()).toContainEqual(
      expect.objectContaining({ kind: "hold", action: "lift", key, actor: "test-admin", hold: set.hold }),
    );
    const list = (await (await call(app, "GET", "/v1/locks")).json()) as { locks: LockState[] };
    expect(list.locks.some((l) => l.key === key)).toBe(false);
    granted(await stub(key).acquire({ key, holder: "run-next", ttlMs: 30_000 }));
  });

  it("lifting a lock with no hold answers 200 with nothing lifted", async () => {
    const key = freshScopeKey("nothing");
    const res = await call(app, "DELETE", holdPath(key));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ hold: null, previous: null });
  });
});
