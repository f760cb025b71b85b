/**
 * The object page's lock forms (docs/operations.md, "The dashboard"): an admin holds, lifts and
 * force-releases the object's lock from its own page, through the same CSRF-checked routes as the
 * main page; a viewer gets no form. The main page's hold form takes the object's identity as well as
 * a lock key.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { objectHash } from "../../workers/dashboard/object-hash";
import { lockStub } from "../../workers/locks/lock-target";
import { apply, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { appIdentity, appLockKey, freshPr, holdAppLock } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";
import { browserRequest, flashPair, session } from "./session";

const app = testApp();

async function knownObject() {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  await apply(app, "preview", freshPr(), previewPlan(domain));
  const identity = appIdentity(domain);
  return {
    domain,
    identity,
    key: await appLockKey(domain),
    path: `/dashboard/objects/${await objectHash(identity)}`,
  };
}

const holdOf = async (key: string) => (await lockStub(env, key).read({ key })).hold;

describe("the object page's lock forms", () => {
  it("an admin holds the object's lock from its page, sees the hold and lifts it", async ({ expect }) => {
    const { key, path } = await knownObject();
    const admin = await session("admin", "alice-admin");
    const page = await (await browserRequest(app, "GET", path, { cookie: admin.cookie })).text();
    const forms = page.slice(page.indexOf('class="lock-forms"'));
    expect(forms).toContain('action="/dashboard/locks/hold"');
    expect(forms).toContain(`name="key" value="${key}"`);
    expect(forms).toContain(`name="csrf" value="${admin.csrf}"`);
    // Nobody holds the lease: nothing to force-release.
    expect(forms).not.toContain('action="/dashboard/locks/release"');

    const held = await browserRequest(app, "POST", "/dashboard/locks/hold", {
      cookie: admin.cookie,
      form: { csrf: admin.csrf, key, reason: "IdP migration", ttlMinutes: "30" },
    });
    expect(held.status).toBe(303);
    expect(await holdOf(key)).toMatchObject({ reason: "IdP migration", by: "alice-admin" });
    const onHold = await (await browserRequest(app, "GET", path, { cookie: admin.cookie })).text();
    expect(onHold).toContain("IdP migration");
    expect(onHold).toContain('action="/dashboard/locks/unhold"');

    const lift = await browserRequest(app, "POST", "/dashboard/locks/unhold", {
      cookie: admin.cookie,
      form: { csrf: admin.csrf, key },
    });
    expect(lift.status).toBe(303);
    expect(await holdOf(key)).toBeUndefined();
  });

  it("while a run holds the lease, the page offers Force release…, which releases it", async ({ expect }) => {
    const { domain, key, path } = await knownObject();
    const stuck = await holdAppLock(domain, "run-stuck");
    const admin = await session("admin");
    const page = await (await browserRequest(app, "GET", path, { cookie: admin.cookie })).text();
    expect(page.slice(page.indexOf('class="lock-forms"'))).toContain('action="/dashboard/locks/release"');
    const released = await browserRequest(app, "POST", "/dashboard/locks/release", {
      cookie: admin.cookie,
      form: { csrf: admin.csrf, key, reason: "stuck run", confirm: "yes" },
    });
    expect(released.status).toBe(303);
    expect((await lockStub(env, key).read({ key })).held).toBe(false);
    await stuck.release();
  });

  it("a viewer's object page has no lock form", async ({ expect }) => {
    const { domain, path } = await knownObject();
    const stuck = await holdAppLock(domain, "run-stuck-viewer");
    const viewer = await session("viewer");
    const page = await (await browserRequest(app, "GET", path, { cookie: viewer.cookie })).text();
    expect(page).toContain("data-identity=");
    expect(page).not.toContain('class="lock-forms"');
    expect(page).not.toContain('action="/dashboard/locks/');
    await stuck.release();
  });

  it("the main page's hold form takes an identity: the object's lock is held, the notice names it", async ({
    expect,
  }) => {
    const { identity, key } = await knownObject();
    const admin = await session("admin");
    const res = await browserRequest(app, "POST", "/dashboard/locks/hold", {
      cookie: admin.cookie,
      form: { csrf: admin.csrf, key: identity, reason: "rotating the client", ttlMinutes: "10" },
    });
    expect(res.status).toBe(303);
    expect(await holdOf(key)).toMatchObject({ reason: "rotating the client" });
    const page = await browserRequest(app, "GET", "/dashboard", {
      cookie: `${admin.cookie}; ${flashPair(res)}`,
    });
    expect(await page.text()).toContain(`Held ${identity}.`);
  });

  it("a form naming neither a key nor an identity is 404 and holds nothing", async ({ expect }) => {
    const admin = await session("admin");
    const res = await browserRequest(app, "POST", "/dashboard/locks/hold", {
      cookie: admin.cookie,
      form: { csrf: admin.csrf, key: "not a lock", reason: "x", ttlMinutes: "10" },
    });
    expect(res.status).toBe(404);
  });
});
