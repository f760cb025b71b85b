/**
 * Force-release is audited in R2 (docs/storage.md, "Audit trail"): actor, reason, holder, token and
 * time, whichever way an admin releases (API or dashboard), listed by GET /v1/audit and on an admin's
 * dashboard; the record outlives the lock's own 50-entry history.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../workers/audit/audit-trail";
import { lockStub, lockTarget } from "../../workers/locks/lock-target";
import { browserRequest, session } from "../dashboard/session";
import { call, testApp } from "../helpers/app";
import { freshScopeKey } from "../helpers/locks";
import { bearer } from "../helpers/tokens";

const app = testApp();

async function heldLock(holder: string) {
  const key = freshScopeKey("audit");
  const grant = await lockTarget(env, key).acquire({
    holder: holder,
    ttlMs: 600_000,
    wait: false,
    waitTimeoutMs: 0,
  });
  if (!grant.ok) throw new Error(grant.error.message);
  return { key, token: grant.value.token };
}

async function audit(headers?: Record<string, string>) {
  const res = await call(app, "GET", "/v1/audit", undefined, headers);
  return {
    res,
    entries: res.status === 200 ? ((await res.json()) as { entries: AuditEntry[] }).entries : [],
  };
}

describe("the force-release audit trail", () => {
  it("a force-release through the API is recorded with actor, reason, holder, token and time", async () => {
    const { key, token } = await heldLock("run-stuck-api");
    const res = await call(app, "DELETE", `/v1/locks/${encodeURIComponent(key)}`, { reason: "runner died" });
    expect(res.status).toBe(200);
    const { at } = (await res.json()) as { at: number };
    const { entries } = await audit();
    expect(entries).toContainEqual({
      kind: "force-release",
      key,
      actor: "test-admin",
      reason: "runner died",
      holder: "run-stuck-api",
      token,
      released: true,
      at,
      // Written as an intent before the release, completed after it (test/audit/audit-intents.test.ts).
      id: expect.any(String),
      startedAt: expect.any(Number),
      status: "done",
    });
  });

  it("the record outlives the lock's 50-entry history", async () => {
    const { key } = await heldLock("run-evicted");
    expect(
      (await call(app, "DELETE", `/v1/locks/${encodeURIComponent(key)}`, { reason: "gone" })).status,
    ).toBe(200);
    // 60 more transitions push the force-release out of the lock's own history.
    for (let i = 0; i < 30; i++) {
      const grant = await lockTarget(env, key).acquire({
        holder: `run-${i}`,
        ttlMs: 60_000,
        wait: false,
        waitTimeoutMs: 0,
      });
      if (!grant.ok) throw new Error(grant.error.message);
      await lockStub(env, key).release({ key, holder: `run-${i}`, token: grant.value.token });
    }
    const history = (await lockStub(env, key).read({ key })).history;
    expect(history.some((h) => h.transition === "force-released")).toBe(false);
    const { entries } = await audit();
    expect(entries).toContainEqual(expect.objectContaining({ key, holder: "run-evicted", reason: "gone" }));
  });

  it("a dashboard force-release is recorded, and an admin's dashboard shows the trail", async () => {
    const { key } = await heldLock("run-stuck-dash");
    const admin = await session("admin", "alice-admin");
    const res = await browserRequest(app, "POST", "/dashboard/locks/release", {
      cookie: admin.cookie,
      form: { csrf: admin.csrf, key, reason: "deploy wedged", confirm: "yes" },
    });
    expect(res.status).toBe(303);
    const { entries } = await audit();
    expect(entries).toContainEqual(
      expect.objectContaining({ kind: "force-release", key, actor: "alice-admin", holder: "run-stuck-dash" }),
    );
    const page = await (await browserRequest(app, "GET", "/dashboard", { cookie: admin.cookie })).text();
    expect(page).toContain("Audit trail");
    expect(page).toContain("deploy wedged");
  });

  it("a viewer's dashboard has no audit trail", async () => {
    const viewer = await session("viewer");
    const page = await (await browserRequest(app, "GET", "/dashboard", { cookie: viewer.cookie })).text();
    expect(page).not.toContain("Audit trail");
  });

  it.each(["viewer", "ci"] as const)("GET /v1/audit as %s is refused 403 role.admin", async (role) => {
    const { res } = await audit(await bearer(role, role === "ci" ? ["*/*"] : undefined));
    expect(res.status).toBe(403);
    expect(((await res.json()) as { rule: string }).rule).toBe("role.admin");
  });
});
