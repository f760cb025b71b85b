/**
 * The dashboard in real headless Chromium against a real local instance (test/e2e/local-server.ts):
 * a stuck run holds the example application's parent lock; two applies (pr-1, pr-2) queue behind
 * it; a viewer watches, is refused a force-release; an admin force-releases with a reason; the
 * viewer's page shows the lock vanish, the applies finish and their runs appear, all without a
 * reload. Every wait is a page condition (Playwright's waitFor), never a fixed sleep.
 */
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { bundledChromium } from "./bundled-chromium";
import { type LocalServer, startLocalServer } from "./local-server";

const ARTIFACTS = "test-artifacts";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
/** examples/plan.json's application, as the Auth0 op names it (workers/adapters/auth0/config.ts). */
const APP_IDENTITY = "auth0:sponson-demo.us.auth0.com:client:preview-app";
const PLAN = JSON.parse(readFileSync("examples/plan.json", "utf8")) as unknown;

let server: LocalServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startLocalServer();
  // A fresh temporary profile per launch (Playwright's default), the Chromium an npm package ships
  // (./bundled-chromium.ts). A browser that cannot start fails the suite here; nothing is skipped.
  const { executablePath, env } = await bundledChromium();
  browser = await chromium.launch({ executablePath, env, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close().catch(() => {});
  await server?.stop();
});

async function signIn(token: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${server.url}/dashboard`);
  // No session yet: the dashboard sends the browser to the form.
  await page.waitForURL(/\/dashboard\/sign-in$/);
  await page.fill('input[name="token"]', token);
  await Promise.all([page.waitForURL(/\/dashboard$/), page.click('button[type="submit"]')]);
  await page.locator('#feed-status[data-state="live"]').waitFor();
  return page;
}

async function api(method: string, path: string, token: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const lockCard = (page: Page, key: string) => page.locator(`article.lock[data-key="${key}"]`);

describe("the dashboard in a browser", () => {
  it("runs in the Chromium the npm package ships, not one installed on the machine", ({ expect }) => {
    const { version } = JSON.parse(readFileSync("node_modules/@sparticuz/chromium/package.json", "utf8")) as {
      version: string;
    };
    // The package's major version is the Chromium major it ships.
    expect(browser.version().split(".")[0]).toBe(version.split(".")[0]);
  });

  it("shows queued applies live, refuses a viewer, lets an admin force-release, updates without reload", async ({
    expect,
  }) => {
    const adminToken = await server.token("admin", "e2e-admin");
    const viewerToken = await server.token("viewer", "e2e-viewer");

    // An earlier preview environment, so the page has a ledger and a run to show.
    const earlier = await api("POST", "/v1/scopes/preview/pr-3/apply", adminToken, { plan: PLAN });
    expect(earlier.status).toBe(200);

    // A run that got stuck holding the example application's lock.
    const hold = await api("POST", "/_test/locks/hold", adminToken, {
      identity: APP_IDENTITY,
      holder: "run-stuck-e2e",
      ttlSeconds: 600,
    });
    expect(hold.status).toBe(200);
    const parentKey = ((await hold.json()) as { key: string }).key;
    expect(parentKey).toMatch(/^_locks\/[0-9a-f]{32}$/);

    const viewer = await signIn(viewerToken);
    const cookies = await viewer.context().cookies();
    const sessionCookie = cookies.find((c) => c.name === "__Host-sponson_session");
    expect(sessionCookie).toMatchObject({ httpOnly: true, secure: true, sameSite: "Strict", path: "/" });
    // Marks this document: it must survive everything below (no reload, no navigation).
    await viewer.evaluate(() => {
      (window as unknown as { e2eMarker: string }).e2eMarker = "same-document";
    });

    // Two applies of the example plan, both willing to wait; each takes its scope lock, then
    // queues behind the stuck run for the application's lock.
    const applies = ["pr-1", "pr-2"].map((scope) =>
      api("POST", `/v1/scopes/preview/${scope}/apply`, adminToken, {
        plan: PLAN,
        wait: true,
        waitTimeoutSeconds: 120,
      }),
    );

    const parent = lockCard(viewer, parentKey);
    await lockCard(viewer, "scope:186853002/preview/pr-1").waitFor();
    await lockCard(viewer, "scope:186853002/preview/pr-2").waitFor();
    await parent.locator(".waiter").nth(1).waitFor();
    expect(await parent.locator(".holder-run .holder").textContent()).toBe("run-stuck-e2e");
    expect(await parent.locator(".identity").textContent()).toBe(APP_IDENTITY);
    const waiters = await parent.locator(".waiter").allTextContents();
    const scopeHolders = [
      await lockCard(viewer, "scope:186853002/preview/pr-1").locator(".holder-run .holder").textContent(),
      await lockCard(viewer, "scope:186853002/preview/pr-2").locator(".holder-run .holder").textContent(),
    ];
    // The runs waiting for the application are exactly the runs holding the two scopes.
    expect([...waiters].sort()).toEqual([...scopeHolders].sort());
    expect(await viewer.locator("article.lock").count()).toBe(3);

    // The countdown is live: its text changes on its own.
    const countdown = parent.locator(".countdown");
    const first = await countdown.textContent();
    await viewer.waitForFunction(
      ([key, before]) =>
        document.querySelector(`article.lock[data-key="${key}"] .countdown`)?.textContent !== before,
      [parentKey, first] as const,
    );

    await viewer.screenshot({ path: join(ARTIFACTS, "dashboard.png"), fullPage: true });
    // The README's picture is refreshed on request only, so a test run never dirties the tree.
    if (process.env.UPDATE_DOCS_SCREENSHOT === "1")
      copyFileSync(join(ARTIFACTS, "dashboard.png"), "docs/dashboard.png");
    const phone = await signIn(viewerToken, { width: 390, height: 844 });
    await lockCard(phone, parentKey).locator(".waiter").nth(1).waitFor();
    await phone.screenshot({ path: join(ARTIFACTS, "dashboard-phone.png"), fullPage: true });
    // Nothing overflows sideways on a phone.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // A viewer has no release form, and posting one anyway (with the page's own CSRF token) is refused.
    expect(await viewer.locator("details.release").count()).toBe(0);
    const refused = await viewer.evaluate(async (key) => {
      const csrf = (document.querySelector('input[name="csrf"]') as HTMLInputElement).value;
      const res = await fetch("/dashboard/locks/release", {
        method: "POST",
        body: new URLSearchParams({ csrf, key, reason: "viewer tries", confirm: "yes" }),
      });
      return { status: res.status, body: (await res.json()) as { code: string } };
    }, parentKey);
    expect(refused).toEqual({ status: 403, body: expect.objectContaining({ code: "FORBIDDEN" }) });
    await parent.waitFor();

    // The admin force-releases the stuck lock with a reason and the confirmation.
    const admin = await signIn(adminToken);
    const adminParent = lockCard(admin, parentKey);
    // The force-release form, not the hold form beside it.
    const release = adminParent.locator("details.release");
    await release.locator("summary").click();
    await release.locator('textarea[name="reason"]').fill("run-stuck-e2e's runner is gone");
    await release.locator('input[name="confirm"]').check();
    await Promise.all([
      // Post/redirect/get: the notice comes from a flash cookie, the URL stays /dashboard.
      admin.waitForResponse((r) => r.url().endsWith("/dashboard/locks/release")),
      release.locator('button[type="submit"]').click(),
    ]);
    await admin.getByText(`Force-released ${parentKey}.`).waitFor();

    // The viewer's page, untouched: the lock vanishes, the applies run, their locks vanish too.
    await parent.waitFor({ state: "detached" });
    await viewer.getByText("No locks are held.").waitFor({ timeout: 60_000 });
    const results = await Promise.all(applies);
    const runs = (await Promise.all(results.map((r) => r.json()))) as Array<{
      run: { id: string; status: string };
    }>;
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(runs.map((r) => r.run.status)).toEqual(["succeeded", "succeeded"]);
    for (const { run } of runs) {
      await viewer.locator(`tr[data-run="${run.id}"] .badge.succeeded`).waitFor();
    }
    await viewer.locator('details.scope[data-scope="preview/pr-1"]').waitFor();
    await viewer.locator('details.scope[data-scope="preview/pr-2"]').waitFor();
    expect(await viewer.evaluate(() => (window as unknown as { e2eMarker?: string }).e2eMarker)).toBe(
      "same-document",
    );

    // The force-release is in the lock's history with who and why.
    const lock = (await (
      await api("GET", `/v1/locks/${encodeURIComponent(parentKey)}`, adminToken)
    ).json()) as {
      history: Array<{ transition: string; note?: string }>;
    };
    expect(lock.history).toContainEqual(
      expect.objectContaining({
        transition: "force-released",
        note: "by e2e-admin: run-stuck-e2e's runner is gone",
      }),
    );

    // No token text anywhere in either page.
    for (const page of [viewer, admin, phone]) {
      const html = await page.content();
      expect(html).not.toContain(viewerToken);
      expect(html).not.toContain(adminToken);
    }
    await viewer.screenshot({ path: join(ARTIFACTS, "dashboard-after.png"), fullPage: true });
  });
});
