/**
 * Signing in with Cloudflare Access in real headless Chromium (docs/security.md, "Cloudflare
 * Access"): a local instance runs the local Access issuer (dev/entry/local-access.ts) with a key made
 * for this run; the browser carries the `CF_Authorization` cookie Access would set, and opens the
 * dashboard without pasting any token. admin@example.com sees the admin-only audit trail, any other
 * @example.com address the dashboard as a viewer, an unmapped address a 403 saying what to ask for.
 */
import { mkdirSync } from "node:fs";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from "jose";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startWranglerDev, type WranglerDev } from "../support/wrangler-dev";
import { bundledChromium } from "./bundled-chromium";

const TEAM = "https://sponson-e2e.access.localhost";
const AUDIENCE = "sponson-e2e-aud";
const ACCESS = {
  teamDomain: TEAM,
  audience: AUDIENCE,
  identities: [
    { email: "admin@example.com", role: "admin" },
    { emailDomain: "example.com", role: "viewer" },
  ],
};
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"];

let server: WranglerDev;
let browser: Browser;
let sign: (email: string) => Promise<string>;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  mkdirSync("test-artifacts", { recursive: true });
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: "RSA", e: jwk.e as string, n: jwk.n as string });
  sign = async (email) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ email, type: "app", identity_nonce: crypto.randomUUID() })
      .setProtectedHeader({ alg: "RS256", kid })
      .setIssuer(TEAM)
      .setAudience([AUDIENCE])
      .setSubject(crypto.randomUUID())
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + 900)
      .sign(privateKey);
  };
  server = await startWranglerDev({
    name: "e2e-access",
    vars: { SPONSON_ACCESS: JSON.stringify(ACCESS), SPONSON_ACCESS_DEV_KEY: JSON.stringify(jwk) },
    readyTimeoutMs: 90_000,
  });
  const { executablePath, env } = await bundledChromium();
  browser = await chromium.launch({ executablePath, env, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close().catch(() => {});
  await server?.stop();
});

/** A browser context holding the cookie Cloudflare Access sets after its login. */
async function behindAccess(email: string) {
  const context = await browser.newContext();
  contexts.push(context);
  await context.addCookies([{ name: "CF_Authorization", value: await sign(email), url: server.url }]);
  return context.newPage();
}

describe("signing in with Cloudflare Access through the local issuer", () => {
  it("admin@example.com opens the dashboard without a token and sees the audit trail", async ({ expect }) => {
    const page = await behindAccess("admin@example.com");
    const res = await page.goto(`${server.url}/dashboard`);
    expect(res?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe("/dashboard");
    await page.locator('#feed-status[data-state="live"]').waitFor();
    await page.locator("#audit").waitFor();
    await page.screenshot({ path: "test-artifacts/access-admin.png" });
  });

  it("alice@example.com is a viewer: the dashboard, no audit trail", async ({ expect }) => {
    const page = await behindAccess("alice@example.com");
    await page.goto(`${server.url}/dashboard`);
    expect(new URL(page.url()).pathname).toBe("/dashboard");
    await page.locator('#feed-status[data-state="live"]').waitFor();
    expect(await page.locator("#audit").count()).toBe(0);
  });

  it("mallory@elsewhere.test is named by no rule: 403 access.unmapped, no sign-in loop", async ({
    expect,
  }) => {
    const page = await behindAccess("mallory@elsewhere.test");
    const res = await page.goto(`${server.url}/dashboard`);
    expect(res?.status()).toBe(403);
    expect(await page.content()).toContain("access.unmapped");
  });

  it("control: without the cookie the browser is sent to the sign-in form", async ({ expect }) => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${server.url}/dashboard`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
  });
});
