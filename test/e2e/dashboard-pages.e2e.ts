/**
 * The dashboard's fleet-scale views in real headless Chromium against a real local instance: the
 * filter form narrows the scope list (and the live refresh keeps it), a run's link opens its page,
 * and an entry's provider object opens the object's page with its owners and the entry that was
 * there before any scope (foreign). Every wait is a page condition, never a fixed sleep.
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
  await page.locator('#feed-status[data-state="live"]').waitFor();
  return page;
}

async function applyScope(scope: string, token: string) {
  const res = await fetch(`${server.url}/v1/scopes/preview/${scope}/apply`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ plan: PLAN }),
  });
  return (await res.json()) as { run: { id: string; status: string } };
}

describe("the dashboard's filters, run page and object page in a browser", () => {
  it("filters scopes, keeps the filter across live refreshes, and opens a run and an object", async ({
    expect,
  }) => {
    const admin = await server.token("admin", "e2e-admin");
    const first = await applyScope("pr-41", admin);
    const second = await applyScope("pr-42", admin);
    expect([first.run.status, second.run.status]).toEqual(["succeeded", "succeeded"]);

    const viewer = await signIn(await server.token("viewer", "e2e-viewer"));
    await viewer.locator('details.scope[data-scope="preview/pr-42"]').waitFor();

    // The filter form: a scope prefix, submitted as a GET.
    await viewer.fill('form.filter input[name="scope"]', "pr-41");
    await Promise.all([
      viewer.waitForURL(/\/dashboard\?.*scope=pr-41/),
      viewer.click('form.filter button[type="submit"]'),
    ]);
    await viewer.locator('details.scope[data-scope="preview/pr-41"]').waitFor();
    expect(await viewer.locator('details.scope[data-scope="preview/pr-42"]').count()).toBe(0);
    // A live refresh (another run anywhere) swaps the sections in and keeps the filter.
    const refreshed = await viewer.locator("#live").getAttribute("data-refreshed");
    await applyScope("pr-43", admin);
    await viewer.waitForFunction(
      (before) => document.getElementById("live")?.getAttribute("data-refreshed") !== before,
      refreshed,
    );
    await viewer.locator('details.scope[data-scope="preview/pr-41"]').waitFor();
    expect(await viewer.locator('details.scope[data-scope="preview/pr-43"]').count()).toBe(0);

    // The run's page, from its link in the ledger (opened unless the page showed it open: a refresh
    // no longer reopens a ledger the reader closed).
    const ledger = viewer.locator('details.scope[data-scope="preview/pr-41"]');
    if (!(await ledger.evaluate((d) => (d as HTMLDetailsElement).open)))
      await ledger.locator("summary").click();
    await Promise.all([
      viewer.waitForURL(new RegExp(`/dashboard/runs/${first.run.id}\\?`)),
      viewer
        .locator(`details.scope[data-scope="preview/pr-41"] a[href*="/dashboard/runs/${first.run.id}"]`)
        .first()
        .click(),
    ]);
    await viewer.locator(`#run[data-run="${first.run.id}"][data-status="succeeded"]`).waitFor();
    expect(await viewer.locator("#run tbody tr").count()).toBe(3);

    // The provider object's page, from the entry's object link.
    await Promise.all([
      viewer.waitForURL(/\/dashboard\/objects\/[0-9a-f]{32}$/),
      viewer.locator("#run a[href^='/dashboard/objects/']").first().click(),
    ]);
    await viewer.locator(`#object[data-identity="${APP_IDENTITY}"]`).waitFor();
    const owners = await viewer
      .locator('tr[data-key="https://pr-41.preview.example.com/callback"] .owners')
      .textContent();
    expect(owners).toContain("preview/pr-41");
    // pr-42's entry on the same object, owned by pr-42 (the filter was the list's, not this page's).
    expect(
      await viewer.locator('tr[data-key="https://pr-42.preview.example.com/callback"] .owners').textContent(),
    ).toContain("preview/pr-42");
    expect(await viewer.locator(".lock-state").getAttribute("data-held")).toBe("false");
    // Auth0's documented cap of 100 web origins: the list's fill as the last write left it.
    const origins = viewer.locator('tr[data-fill-op="auth0.webOrigin"]');
    expect(await origins.getAttribute("data-fill-level")).toBe("ok");
    expect(await origins.locator("td.fill").textContent()).toMatch(/\b\d+ of 100 · \d+ %/);
  });
  it("a ledger the reader opened or closed stays so across a live refresh", async ({ expect }) => {
    const admin = await server.token("admin", "e2e-admin");
    await applyScope("pr-44", admin);
    const viewer = await signIn(await server.token("viewer", "e2e-viewer"));
    const ledger = viewer.locator('details.scope[data-scope="preview/pr-44"]');
    await ledger.waitFor();
    const open = () => ledger.evaluate((d) => (d as HTMLDetailsElement).open);
    // Whatever the server's default for it, the reader turns it the other way.
    const byServer = await open();
    await ledger.locator("summary").click();
    expect(await open()).toBe(!byServer);
    const refreshed = await viewer.locator("#live").getAttribute("data-refreshed");
    await applyScope("pr-45", admin);
    await viewer.waitForFunction(
      (before) => document.getElementById("live")?.getAttribute("data-refreshed") !== before,
      refreshed,
    );
    await viewer.locator('details.scope[data-scope="preview/pr-45"]').waitFor();
    expect(await open()).toBe(!byServer);
  });
});
