/**
 * The emulated Okta apps API answers the documented requests with the documented shapes (Okta Apps API
 * reference).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../../dev/emulators/transport";
import { configureHost } from "../../helpers/emulators";
import { freshOktaOrg, oktaOidcApp, seedOktaApp, seedOktaToken } from "../../helpers/emulators-okta";

const send = providerFetch(env);
const ID = "0oa9fidelity";

async function org() {
  const host = freshOktaOrg();
  await seedOktaToken(host, "00token-fidelity");
  await seedOktaApp(
    host,
    oktaOidcApp(ID, {
      redirect_uris: ["https://a.example.com/cb"],
      post_logout_redirect_uris: ["https://a.example.com/"],
    }),
  );
  return { host, url: `https://${host}/api/v1/apps/${ID}`, auth: { authorization: "SSWS 00token-fidelity" } };
}

describe("Okta emulator fidelity", () => {
  it("GET /api/v1/apps/{id} → the OIDC app with settings.oauthClient lists and X-Rate-Limit-* (reset in epoch seconds)", async () => {
    const o = await org();
    const res = await send(o.url, { headers: o.auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: ID,
      signOnMode: "OPENID_CONNECT",
      credentials: { oauthClient: { client_id: ID, token_endpoint_auth_method: "client_secret_basic" } },
      settings: { oauthClient: { redirect_uris: ["https://a.example.com/cb"], application_type: "web" } },
    });
    const reset = Number(res.headers.get("x-rate-limit-reset"));
    expect(reset).toBeGreaterThan(Date.now() / 1000 - 1);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    expect(res.headers.get("x-rate-limit-limit")).toBe("100");
  });

  it("PUT is a full replace: an optional list left out is gone; a missing required field is 400 E0000001", async () => {
    const o = await org();
    const app = (await (await send(o.url, { headers: o.auth })).json()) as ReturnType<typeof oktaOidcApp>;
    const { post_logout_redirect_uris: _dropped, ...oauthClient } = app.settings.oauthClient;
    const put = await send(o.url, {
      method: "PUT",
      headers: { ...o.auth, "content-type": "application/json" },
      body: JSON.stringify({ ...app, status: "INACTIVE", settings: { ...app.settings, oauthClient } }),
    });
    expect(put.status).toBe(200);
    const saved = (await put.json()) as ReturnType<typeof oktaOidcApp>;
    expect(saved.settings.oauthClient).not.toHaveProperty("post_logout_redirect_uris");
    expect(saved.status).toBe("ACTIVE"); // read-only properties in the body are ignored

    const { label: _label, ...withoutLabel } = app;
    const bad = await send(o.url, {
      method: "PUT",
      headers: { ...o.auth, "content-type": "application/json" },
      body: JSON.stringify(withoutLabel),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      errorCode: "E0000001",
      errorSummary: "Api validation failed: label",
      errorLink: "E0000001",
      errorId: expect.stringMatching(/^oae/),
      errorCauses: [{ errorSummary: "label: The field cannot be left blank." }],
    });
  });

  it("errors: 401 E0000011, 404 E0000007 naming the AppInstance, 429 E0000047 with remaining 0", async () => {
    const o = await org();
    expect(await (await send(o.url)).json()).toMatchObject({
      errorCode: "E0000011",
      errorSummary: "Invalid token provided",
    });
    const missing = await send(o.url.replace(ID, "0oamissing"), { headers: o.auth });
    expect([missing.status, await missing.json()]).toEqual([
      404,
      expect.objectContaining({
        errorCode: "E0000007",
        errorSummary: "Not found: Resource not found: 0oamissing (AppInstance)",
      }),
    ]);
    await configureHost(o.host, { failures: [{ status: 429, count: 1 }] });
    const limited = await send(o.url, { headers: o.auth });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("x-rate-limit-remaining")).toBe("0");
    expect(await limited.json()).toMatchObject({
      errorCode: "E0000047",
      errorSummary: "API call exceeded rate limit due to too many requests.",
    });
  });
});
