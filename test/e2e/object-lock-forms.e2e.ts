/**
 * The object page's lock forms in real headless Chromium against a real local instance: an admin
 * opens the provider object's page, holds its lock with Hold… (reason and minutes), is brought back
 * to the dashboard with the notice, sees the hold on the object's page and lifts it there. A viewer
 * sees no form. Every wait is a page condition, never a fixed sleep.
 */
import { readFileSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { bundledChromium } from "./bundled-chromium";
import { type LocalServer, startLocalServer } from "./local-server";

const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"];
const APP_IDENTITY = "auth0:sponson-demo.us.auth0.com:client:preview-app";
const PLAN = JSON.parse(readFileSync("examples/plan.json", "utf8")) as unknown;

let server: LocalServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  server = await startLocalServer();
  const { executablePath, env } = await bundledChromium();
  browser = await chromium.launch({ executablePath, env, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close().catch(() => {});
  await server?.stop();
});

async function signIn(token: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${server.url}/dashboard/sign-in`);
  await page.fill('input[name="token"]', token);
  await Promise.all([page.waitForURL(/\/dashboard$/), page.click('button[type="submit"]')]);
  return page;
}

/** The object's page address: its hash, as the dashboard links it. */
async function objectPath(): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(APP_IDENTITY));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `/dashboard/objects/${hex.slice(0, 32)}`;
}

describe("the object page's lock forms in a browser", () => {
  it("an admin holds the object's lock from its page and lifts it there; a viewer has no form", async ({
    expect,
  }) => {
    const admin = await server.token("admin", "e2e-admin");
    const applied = await fetch(`${server.url}/v1/scopes/preview/pr-61/apply`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ plan: PLAN }),
    });
    expect(applied.status).toBe(200);
    const path = await objectPath();

    const viewer = await signIn(await server.token("viewer", "e2e-viewer"));
    await viewer.goto(`${server.url}${path}`);
    await viewer.locator(`#object[data-identity="${APP_IDENTITY}"]`).waitFor();
    expect(await viewer.locator(".lock-forms").count()).toBe(0);

    const page = await signIn(await server.token("admin", "e2e-admin-forms"));
    await page.goto(`${server.url}${path}`);
    const forms = page.locator(".lock-forms");
    await forms.locator("details.hold-form summary").click();
    await forms.locator('textarea[name="reason"]').fill("IdP migration");
    await forms.locator('input[name="ttlMinutes"]').fill("30");
    await Promise.all([
      page.waitForURL(/\/dashboard$/),
      forms.locator('details.hold-form button[type="submit"]').click(),
    ]);
    expect(await page.locator("body").textContent()).toMatch(/Held _locks\/[0-9a-f]{32}\./);

    await page.goto(`${server.url}${path}`);
    expect(await page.locator("p.hold").textContent()).toContain("IdP migration");
    await Promise.all([
      page.waitForURL(/\/dashboard$/),
      page.locator('form.lift button[type="submit"]').click(),
    ]);
    expect(await page.locator("body").textContent()).toMatch(/Lifted the hold on _locks\/[0-9a-f]{32}\./);
    await page.goto(`${server.url}${path}`);
    expect(await page.locator("p.hold").count()).toBe(0);
  });
});
