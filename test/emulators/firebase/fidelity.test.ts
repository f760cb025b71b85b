/**
 * The emulated Google token endpoint and Identity Platform admin API answer the documented requests
 * with the documented shapes (Identity Platform admin API v2 reference).
 */
import { env } from "cloudflare:workers";
import { importPKCS8, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../../dev/emulators/transport";
import {
  freshGoogleProject,
  googleServiceAccount,
  type ServiceAccount,
  seedIdentityProject,
} from "../../helpers/emulators-firebase";

const send = providerFetch(env);
const TOKEN_URL = "https://oauth2.googleapis.com/token";

async function assertion(account: ServiceAccount, claims: { aud?: string; scope?: string } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: claims.scope ?? "https://www.googleapis.com/auth/cloud-platform" })
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setIssuer(account.email)
    .setAudience(claims.aud ?? TOKEN_URL)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(await importPKCS8(account.privateKeyPem, "RS256"));
}

function tokenRequest(jwt: string) {
  return send(TOKEN_URL, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: jwt }),
  });
}

async function accessToken(account: ServiceAccount): Promise<string> {
  const res = await tokenRequest(await assertion(account));
  return ((await res.json()) as { access_token: string }).access_token;
}

describe("Google token endpoint emulator", () => {
  it("a signed jwt-bearer assertion → 200 { access_token, expires_in, token_type: Bearer }", async () => {
    const res = await tokenRequest(await assertion(await googleServiceAccount()));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      access_token: expect.stringMatching(/^ya29\./),
      expires_in: 3599,
      token_type: "Bearer",
    });
  });

  it("a wrong audience or a key Google does not know → 400 invalid_grant", async () => {
    const account = await googleServiceAccount();
    const wrongAud = await tokenRequest(await assertion(account, { aud: "https://example.com/token" }));
    expect([wrongAud.status, await wrongAud.json()]).toEqual([
      400,
      { error: "invalid_grant", error_description: "Invalid JWT Signature." },
    ]);
    const unknown = await tokenRequest(await assertion(await googleServiceAccount(false)));
    expect(await unknown.json()).toEqual({
      error: "invalid_grant",
      error_description: "Invalid grant: account not found",
    });
  });
});

describe("Identity Platform admin v2 emulator", () => {
  async function project() {
    const account = await googleServiceAccount();
    const id = freshGoogleProject();
    await seedIdentityProject(id, {
      members: { [account.email]: "editor" },
      config: { authorizedDomains: ["localhost", `${id}.firebaseapp.com`], mfa: { state: "DISABLED" } },
    });
    const url = `https://identitytoolkit.googleapis.com/admin/v2/projects/${id}/config`;
    return { id, url, auth: { authorization: `Bearer ${await accessToken(account)}` } };
  }

  it("GET config → the Config resource with name and authorizedDomains", async () => {
    const p = await project();
    const res = await send(p.url, { headers: p.auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      name: `projects/${p.id}/config`,
      authorizedDomains: ["localhost", `${p.id}.firebaseapp.com`],
      mfa: { state: "DISABLED" },
    });
  });

  it("PATCH ?updateMask=authorizedDomains replaces that array only and returns the full Config", async () => {
    const p = await project();
    const res = await send(`${p.url}?updateMask=authorizedDomains`, {
      method: "PATCH",
      headers: { ...p.auth, "content-type": "application/json" },
      body: JSON.stringify({ authorizedDomains: ["localhost"], mfa: { state: "ENABLED" } }),
    });
    expect(await res.json()).toEqual({
      name: `projects/${p.id}/config`,
      authorizedDomains: ["localhost"],
      mfa: { state: "DISABLED" },
    });
  });

  it("errors use Google's envelope: 401 UNAUTHENTICATED, 403 PERMISSION_DENIED", async () => {
    const p = await project();
    const anonymous = await send(p.url);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({
      error: {
        code: 401,
        message: expect.stringContaining("invalid authentication credentials"),
        status: "UNAUTHENTICATED",
      },
    });
    const other = await send(p.url.replace(p.id, freshGoogleProject()), { headers: p.auth });
    expect(await other.json()).toEqual({
      error: { code: 403, message: "The caller does not have permission", status: "PERMISSION_DENIED" },
    });
  });
});
