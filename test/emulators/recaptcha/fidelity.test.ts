/**
 * The emulated reCAPTCHA Enterprise API answers like the service (API v1, projects.keys): GET the
 * key; PATCH with an optional updateMask — only the named fields with one, every field without one
 * ("If the mask is not present, all fields are updated") — answered with the key; allowed domains
 * that are hosts alone, at most 250; Google's error envelope and its 401 / 403 / 404.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { issueGoogleToken } from "../../../dev/emulators/google/access-token";
import { providerFetch } from "../../../dev/emulators/transport";
import { withServiceAccountKeyToken } from "../../../workers/adapters/firebase/google-auth";
import { recaptchaProjectWithKey, SITE_KEY } from "../../adapters/recaptcha/recaptcha-key";
import { recaptchaKey } from "../../helpers/emulators-recaptcha";

const send = providerFetch(env);

async function signedIn(domains = ["app.example.com"]) {
  const p = await recaptchaProjectWithKey(domains);
  let token = "";
  const config = p.ctx.config as { serviceAccountKey: Parameters<typeof withServiceAccountKeyToken>[2] };
  await withServiceAccountKeyToken(p.ctx, "recaptcha", config.serviceAccountKey, async (t) => {
    token = t;
  });
  const url = `https://recaptchaenterprise.googleapis.com/v1/projects/${p.project}/keys/${SITE_KEY}`;
  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const patch = (query: string, body: unknown) =>
    send(`${url}${query}`, { method: "PATCH", headers: auth, body: JSON.stringify(body) });
  const stored = () => recaptchaKey(p.project, SITE_KEY);
  return { p, url, auth, patch, stored };
}

const domains = (n: number) => Array.from({ length: n }, (_, i) => `d${i}.example.com`);

describe("reCAPTCHA Enterprise keys emulator fidelity", () => {
  it("GET → the key with its name, displayName and webSettings", async () => {
    const s = await signedIn();
    const res = await send(s.url, { headers: s.auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: `projects/${s.p.project}/keys/${SITE_KEY}`,
      displayName: "Previews",
      webSettings: { allowedDomains: ["app.example.com"], integrationType: "SCORE" },
    });
  });

  it("PATCH ?updateMask=webSettings.allowedDomains replaces that list alone and answers the key", async () => {
    const s = await signedIn();
    const before = await s.stored();
    const res = await s.patch("?updateMask=webSettings.allowedDomains", {
      webSettings: { allowedDomains: ["b.example.com"], integrationType: "CHECKBOX" },
      displayName: "ignored: not in the mask",
    });
    expect(res.status).toBe(200);
    const after = await s.stored();
    expect(await res.json()).toEqual(after);
    if (!before?.webSettings) throw new Error("no key");
    expect(after).toEqual({
      ...before,
      webSettings: { ...before.webSettings, allowedDomains: ["b.example.com"] },
    });
  });

  it("the mask in snake_case (as gRPC clients name fields) is the same path", async () => {
    const s = await signedIn();
    const res = await s.patch("?update_mask=web_settings.allowed_domains", {
      webSettings: { allowedDomains: ["c.example.com"] },
    });
    expect(res.status).toBe(200);
    expect((await s.stored())?.labels).toEqual({ team: "web" });
  });

  it("PATCH without a mask updates every field: what the body leaves out is cleared (why the adapter always sends one)", async () => {
    const s = await signedIn();
    const res = await s.patch("", {
      displayName: "Previews",
      webSettings: { allowedDomains: ["b.example.com"], integrationType: "SCORE" },
    });
    expect(res.status).toBe(200);
    const after = await s.stored();
    expect(after?.webSettings).toEqual({ allowedDomains: ["b.example.com"], integrationType: "SCORE" });
    expect(after?.labels).toBeUndefined();
    expect(after?.wafSettings).toBeUndefined();
    expect(after?.createTime).toBe("2026-11-02T09:30:00.000000Z");
  });

  it("PATCH without a mask and without the required displayName is 400 INVALID_ARGUMENT, nothing changed", async () => {
    const s = await signedIn();
    const before = await s.stored();
    const res = await s.patch("", {
      webSettings: { allowedDomains: ["b.example.com"], integrationType: "SCORE" },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
    expect(await s.stored()).toEqual(before);
  });

  it("a whole webSettings in the mask replaces the whole message", async () => {
    const s = await signedIn();
    const res = await s.patch("?updateMask=webSettings", {
      webSettings: { allowedDomains: ["b.example.com"], integrationType: "INVISIBLE" },
    });
    expect(res.status).toBe(200);
    expect((await s.stored())?.webSettings).toEqual({
      allowedDomains: ["b.example.com"],
      integrationType: "INVISIBLE",
    });
  });

  it.each(["createTime", "name", "webSettings.nope", "nope"])("a mask naming %s is 400", async (path) => {
    const s = await signedIn();
    const res = await s.patch(`?updateMask=${path}`, {});
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { status: "INVALID_ARGUMENT" } });
  });

  it("a field the Key message does not have is 400", async () => {
    const s = await signedIn();
    const res = await s.patch("?updateMask=displayName", { displayName: "x", etag: "1" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      'Unknown name "etag"',
    );
  });

  it.each([
    "https://b.example.com",
    "b.example.com:8443",
    "b.example.com/path",
    "b.example.com?q",
    "*.example.com",
    "",
  ])("an allowed domain %j that is not a host alone is 400 INVALID_ARGUMENT", async (domain) => {
    const s = await signedIn();
    const res = await s.patch("?updateMask=webSettings.allowedDomains", {
      webSettings: { allowedDomains: ["b.example.com", domain] },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
    expect((await s.stored())?.webSettings?.allowedDomains).toEqual(["app.example.com"]);
  });

  it("250 domains are taken; a 251st is 400 INVALID_ARGUMENT", async () => {
    const s = await signedIn();
    const full = await s.patch("?updateMask=webSettings.allowedDomains", {
      webSettings: { allowedDomains: domains(250) },
    });
    expect(full.status).toBe(200);
    const over = await s.patch("?updateMask=webSettings.allowedDomains", {
      webSettings: { allowedDomains: domains(251) },
    });
    expect(over.status).toBe(400);
    expect(await over.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
    expect((await s.stored())?.webSettings?.allowedDomains).toHaveLength(250);
  });

  it("platform settings are a oneof: setting androidSettings on a website key clears webSettings", async () => {
    const s = await signedIn();
    const res = await s.patch("?updateMask=androidSettings", {
      androidSettings: { allowedPackageNames: ["com.example.app"] },
    });
    expect(res.status).toBe(200);
    expect((await s.stored())?.webSettings).toBeUndefined();
  });

  it("enums sent as numbers are kept as names; $alt=json;enum-encoding=int answers numbers (google-gax's REST fallback)", async () => {
    const s = await signedIn();
    const res = await s.patch("?updateMask=webSettings.integrationType", {
      webSettings: { integrationType: 2 },
    });
    expect(res.status).toBe(200);
    expect((await s.stored())?.webSettings?.integrationType).toBe("CHECKBOX");
    const numbers = await send(`${s.url}?$alt=json%3Benum-encoding=int`, { headers: s.auth });
    expect(await numbers.json()).toMatchObject({
      webSettings: { integrationType: 2 },
      wafSettings: { wafService: 1, wafFeature: 3 },
    });
    const names = await send(s.url, { headers: s.auth });
    expect(await names.json()).toMatchObject({ webSettings: { integrationType: "CHECKBOX" } });
  });

  it("no credentials: 401 UNAUTHENTICATED in Google's envelope", async () => {
    const s = await signedIn();
    const res = await send(s.url);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED" } });
  });

  it("a token without the cloud-platform scope: 403 PERMISSION_DENIED", async () => {
    const s = await signedIn();
    const now = Date.now();
    const token = await issueGoogleToken({
      sub: s.p.account.email,
      scope: "https://www.googleapis.com/auth/devstorage.read_only",
      iat: now,
      exp: now + 3_600_000,
    });
    const res = await send(s.url, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      error: {
        code: 403,
        status: "PERMISSION_DENIED",
        message: "Request had insufficient authentication scopes.",
      },
    });
  });

  it("a project the account has no role on: 403, whether the key exists or not", async () => {
    const s = await signedIn();
    const res = await send(s.url.replace(s.p.project, "someone-elses"), { headers: s.auth });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { status: "PERMISSION_DENIED" } });
  });

  it("an unknown key of a project the account may read: 404 NOT_FOUND", async () => {
    const s = await signedIn();
    const res = await send(s.url.replace(SITE_KEY, "6LcNoSuchKey"), { headers: s.auth });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 404, status: "NOT_FOUND" } });
  });
});
