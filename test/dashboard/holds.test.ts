/**
 * Holds from the dashboard (docs/operations.md, "Holds"): an admin holds a lock with a reason and a duration
 * and lifts it, through forms that pass the same-origin and CSRF checks; the page shows a held
 * lock (held by nobody too) with its reason, who set it and until when. Viewers are refused.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { AuditEntry } from "../../workers/audit/audit-trail";
import { lockStub } from "../../workers/locks/lock-target";
import { call, testApp } from "../helpers/app";
import { freshScopeKey } from "../helpers/locks";
import { browserRequest, flashPair, session } from "./session";

const app = testApp();
const holdOf = async (key: string) => (await lockStub(env, key).read({ key })).hold;

describe("dashboard holds", () => {
  it("an admin holds a free lock: the page shows it with reason, author and end, and offers to lift it", async ({
    expect,
  }) => {
    const key = freshScopeKey("dash-hold");
    const admin = await session("admin", "alice-admin");
    const page0 = await (await browserRequest(app, "GET", "/dashboard", { cookie: admin.cookie })).text();
    expect(page0).toContain('action="/dashboard/locks/hold"');

    const res = await browserRequest(app, "POST", "/dashboard/locks/hold", {
      cookie: admin.cookie,
      form: { csrf: admin.csrf, key, reason: "IdP migration", ttlMinutes: "90" },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard");
    const hold = await holdOf(key);
    expect(hold).toMatchObject({ reason: "IdP migration", by: "alice-admin" });
    expect((hold?.until ?? 0) - (hold?.since ?? 0)).toBe(90 * 60_000);
    const entries = ((await (await call(app, "GET", "/v1/audit")).json()) as { entries: AuditEntry[] })
      .entries;
    expect(entries).toContainEqual(
      expect.objectContaining({ kind: "hold", action: "set", key, actor: "alice-admin" }),
    );

    const page = await (
      await browserRequest(app, "GET", res.headers.get("location") ?? "", {
        cookie: `${admin.cookie}; ${flashPair(res)}`,
      })
    ).text();
    expect(page).toContain(`Held ${key}.`);
    expect(page).toContain(`data-key="${key}"`);
    expect(page).toContain("IdP migration");
    expect(page).toContain('action="/dashboard/locks/unhold"');

    const lift = await browserRequest(app, "POST", "/dashboard/locks/unhold", {
      cookie: admin.cookie,
      form: { csrf: admin.csrf, key },
    });
    expect(lift.status).toBe(303);
    expect(lift.headers.get("location")).toBe("/dashboard");
    const lifted = await browserRequest(app, "GET", "/dashboard", {
      cookie: `${admin.cookie}; ${flashPair(lift)}`,
    });
    expect(await lifted.text()).toContain(`Lifted the hold on ${key}.`);
    expect(await holdOf(key)).toBeUndefined();
  });

  it("a viewer is refused 403 and sees no hold form; an admin without CSRF or with a bad duration changes nothing", async ({
    expect,
  }) => {
    const key = freshScopeKey("dash-refused");
    const viewer = await session("viewer");
    const admin = await session("admin");
    const refused = await browserRequest(app, "POST", "/dashboard/locks/hold", {
      cookie: viewer.cookie,
      form: { csrf: viewer.csrf, key, reason: "mine", ttlMinutes: "60" },
    });
    expect(refused.status).toBe(403);
    const viewerPage = await (
      await browserRequest(app, "GET", "/dashboard", { cookie: viewer.cookie })
    ).text();
    expect(viewerPage).not.toContain('action="/dashboard/locks/hold"');
    const noCsrf = await browserRequest(app, "POST", "/dashboard/locks/hold", {
      cookie: admin.cookie,
      form: { key, reason: "r", ttlMinutes: "60" },
    });
    expect(noCsrf.status).toBe(403);
    for (const ttlMinutes of ["0", "soon", "43201"]) {
      const bad = await browserRequest(app, "POST", "/dashboard/locks/hold", {
        cookie: admin.cookie,
        form: { csrf: admin.csrf, key, reason: "r", ttlMinutes },
      });
      expect(bad.status).toBe(400);
    }
    expect(await holdOf(key)).toBeUndefined();
    const unhold = await browserRequest(app, "POST", "/dashboard/locks/unhold", {
      cookie: viewer.cookie,
      form: { csrf: viewer.csrf, key },
    });
    expect(unhold.status).toBe(403);
  });
});
