/**
 * docs/design.md, "Federated connections": a client assertion is good for one exchange. When a
 * token request is processed but its answer is lost (a 503 in front of it, a timeout), the retry
 * must carry a new assertion: resending the used one is refused ("already been used") and would
 * turn a brief outage into a false credential refusal.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { auth0Keys, clientRecord, type M2mClient } from "../../dev/emulators/auth0/state";
import { oktaKeys, oktaOidcApp } from "../../dev/emulators/okta";
import { publishedKeys } from "../../workers/keys/federation";
import { call, testApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { auth0Client, emulatorStub, freshAuth0Domain } from "../helpers/emulators";
import { freshOktaOrg, oktaApp } from "../helpers/emulators-okta";
import { freshPr } from "../helpers/engine";

const APP = "retry-app";
const OKTA_APP = "0oapkjwtretryapp";

const signingSecret = () => String((env as unknown as Record<string, unknown>).FEDERATION_SIGNING_KEY);
const serviceKeys = async () => (await publishedKeys(signingSecret())).keys as Record<string, unknown>[];

function jtiOf(assertion: string | null | undefined): string {
  const claims = JSON.parse(atob((assertion ?? "").split(".")[1] ?? "")) as { jti?: string };
  return claims.jti ?? "";
}

/**
 * Forwards the first token request to the emulator (which consumes its assertion), then throws its
 * answer away and says 503; later token requests pass. Records each assertion's jti.
 */
function lostFirstAnswerApp(read: (body: string) => string | null | undefined) {
  const jtis: string[] = [];
  const app = testApp({
    engine: {
      wrapFetch: (inner) => async (input, init) => {
        const request = new Request(input, init);
        if (!new URL(request.url).pathname.endsWith("/token")) return inner(request);
        jtis.push(jtiOf(read(await request.clone().text())));
        const response = await inner(request);
        if (jtis.length > 1) return response;
        expect(response.status).toBe(200);
        await response.body?.cancel();
        return new Response("upstream unavailable", { status: 503 });
      },
    },
  });
  return { app, jtis };
}

describe("privateKeyJwt: a retried token request carries a new assertion", () => {
  it("Okta: the first answer is lost (503 after the exchange happened); the run still applies", async () => {
    const clientId = "0oapkjwtretry";
    const org = freshOktaOrg();
    await emulatorStub(org).seed({
      [oktaKeys.serviceApp(clientId)]: {
        scopes: ["okta.apps.read", "okta.apps.manage"],
        keys: await serviceKeys(),
      },
      [oktaKeys.app(OKTA_APP)]: oktaOidcApp(OKTA_APP, { redirect_uris: [], post_logout_redirect_uris: [] }),
    });
    const connection = registerConnection("okta-pkjwt-retry", {
      type: "okta",
      config: { domain: org },
      privateKeyJwt: { clientId },
    });
    const { app, jtis } = lostFirstAnswerApp((body) => new URLSearchParams(body).get("client_assertion"));
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: {
        version: 2,
        lines: [{ id: "cb", op: "okta.redirectUri", connection, params: { app: OKTA_APP, url } }],
      },
    });
    expect(res.status, await res.text()).toBe(200);
    expect((await oktaApp(org, OKTA_APP))?.settings.oauthClient.redirect_uris).toEqual([url]);
    expect(jtis).toHaveLength(2);
    expect(jtis[0]).not.toBe("");
    expect(jtis[1]).not.toBe(jtis[0]);
  });

  it("Auth0: the same, at the tenant's /oauth/token", async () => {
    const clientId = "pkjwt-m2m-retry";
    const domain = freshAuth0Domain("pkjwt-retry");
    await emulatorStub(domain).seed({
      [auth0Keys.m2m(clientId)]: {
        privateKeyJwt: { keys: await serviceKeys() },
        scopes: ["read:clients", "update:clients"],
      } satisfies M2mClient,
      [auth0Keys.client(APP)]: clientRecord(APP),
    });
    const connection = registerConnection("auth0-pkjwt-retry", {
      type: "auth0",
      config: { domain },
      privateKeyJwt: { clientId },
    });
    const { app, jtis } = lostFirstAnswerApp(
      (body) => (JSON.parse(body) as Record<string, string>).client_assertion,
    );
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: {
        version: 2,
        lines: [{ id: "cb", op: "auth0.callbackUrl", connection, params: { client: APP, url } }],
      },
    });
    expect(res.status, await res.text()).toBe(200);
    expect((await auth0Client(domain, APP))?.callbacks).toEqual([url]);
    expect(jtis).toHaveLength(2);
    expect(jtis[1]).not.toBe(jtis[0]);
  });
});

describe("privateKeyJwt: an exchange refused under the lease names the connection", () => {
  it("Okta: the key is unregistered after prepare and the write's 401 forces a new exchange", async () => {
    const clientId = "0oapkjwtrelost";
    const org = freshOktaOrg();
    const serviceApp = (keys: Record<string, unknown>[]) => ({
      [oktaKeys.serviceApp(clientId)]: { scopes: ["okta.apps.read", "okta.apps.manage"], keys },
    });
    await emulatorStub(org).seed({
      ...serviceApp(await serviceKeys()),
      [oktaKeys.app(OKTA_APP)]: oktaOidcApp(OKTA_APP, { redirect_uris: [], post_logout_redirect_uris: [] }),
    });
    const connection = registerConnection("okta-pkjwt-relost", {
      type: "okta",
      config: { domain: org },
      privateKeyJwt: { clientId },
    });
    let writes = 0;
    const app = testApp({
      engine: {
        wrapFetch: (inner) => async (input, init) => {
          const request = new Request(input, init);
          const path = new URL(request.url).pathname;
          if (request.method === "GET" || !path.startsWith("/api/v1/apps/")) return inner(request);
          writes += 1;
          if (writes > 1) return inner(request);
          // The operator removed the key meanwhile; the token in hand is refused too.
          await emulatorStub(org).seed(serviceApp([]));
          return Response.json(
            { errorCode: "E0000011", errorSummary: "Invalid token provided" },
            { status: 401 },
          );
        },
      },
    });
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: {
        version: 2,
        lines: [{ id: "cb", op: "okta.redirectUri", connection, params: { app: OKTA_APP, url } }],
      },
    });
    const text = await res.text();
    expect(res.status, text).toBeGreaterThanOrEqual(400);
    expect(writes).toBe(1);
    expect(text).toContain("invalid_client");
    expect(text).toContain('connection \\"okta-pkjwt-relost\\": okta: 401');
    expect(text).not.toContain('connection \\"okta-pkjwt-relost\\": connection');
    expect((await oktaApp(org, OKTA_APP))?.settings.oauthClient.redirect_uris).toEqual([]);
  });
});
