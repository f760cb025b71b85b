/**
 * docs/design.md, "Federated connections": Auth0 and Okta connections configured with
 * `privateKeyJwt` sign in with client credentials whose client assertion the service signs with its
 * federation key (RFC 7523: iss = sub = the client id, aud = the tenant URL / token endpoint, a
 * one-use jti). The emulated token endpoints check it against the key registered on the client.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { auth0Keys, clientRecord, type M2mClient } from "../../dev/emulators/auth0/state";
import { type OktaServiceApp, oktaKeys, oktaOidcApp } from "../../dev/emulators/okta";
import { SecretRegistry } from "../../shared/secrets";
import { mintClientAssertion } from "../../workers/keys/client-assertion";
import { FEDERATION_KEY_RING, publishedKeys } from "../../workers/keys/federation";
import { call, destroy, testApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { auth0Client, emulatorStub, freshAuth0Domain } from "../helpers/emulators";
import { freshOktaOrg, oktaApp } from "../helpers/emulators-okta";
import { freshPr, providerWrites } from "../helpers/engine";

const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
const JWT = /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/;
const APP = "preview-app";
const OKTA_APP = "0oapkjwtapp";

afterEach(() => vi.restoreAllMocks());

const signingSecret = () => String((env as unknown as Record<string, unknown>).FEDERATION_SIGNING_KEY);
const serviceKeys = async () => (await publishedKeys(signingSecret())).keys as Record<string, unknown>[];
/** Another RS256 key pair's public half: "a key that is not the service's". */
async function foreignKey(): Promise<Record<string, unknown>> {
  const pair = (await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  return { ...(await crypto.subtle.exportKey("jwk", pair.publicKey)), kid: "someone-else" };
}

async function auth0Tenant(clientId: string, keys: Record<string, unknown>[]) {
  const domain = freshAuth0Domain("pkjwt");
  await emulatorStub(domain).seed({
    [auth0Keys.m2m(clientId)]: {
      privateKeyJwt: { keys },
      scopes: ["read:clients", "update:clients"],
    } satisfies M2mClient,
    [auth0Keys.client(APP)]: clientRecord(APP),
  });
  return domain;
}

async function oktaOrg(clientId: string, app: Omit<OktaServiceApp, "scopes"> & { scopes?: string[] }) {
  const org = freshOktaOrg();
  await emulatorStub(org).seed({
    [oktaKeys.serviceApp(clientId)]: { scopes: ["okta.apps.read", "okta.apps.manage"], ...app },
    [oktaKeys.app(OKTA_APP)]: oktaOidcApp(OKTA_APP, { redirect_uris: [], post_logout_redirect_uris: [] }),
  });
  return org;
}

const auth0Connection = (name: string, domain: string, clientId: string) =>
  registerConnection(name, { type: "auth0", config: { domain }, privateKeyJwt: { clientId } });
const oktaConnection = (name: string, org: string, clientId: string) =>
  registerConnection(name, { type: "okta", config: { domain: org }, privateKeyJwt: { clientId } });

const auth0Plan = (connection: string, scope: string) => ({
  version: 2 as const,
  lines: [
    {
      id: "cb",
      op: "auth0.callbackUrl",
      connection,
      params: { client: APP, url: `https://${scope}.preview.example.com/callback` },
    },
  ],
});
const oktaPlan = (connection: string, scope: string) => ({
  version: 2 as const,
  lines: [
    {
      id: "cb",
      op: "okta.redirectUri",
      connection,
      params: { app: OKTA_APP, url: `https://${scope}.preview.example.com/callback` },
    },
  ],
});

/** Every console line of the test, to search for the assertion and the access token. */
function captureLogs(): string[] {
  const logged: string[] = [];
  for (const level of ["log", "info", "warn", "error", "debug"] as const)
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
  return logged;
}

/** An app that records what went to a token endpoint and what came back. */
function tokenObservingApp() {
  const exchanges: Array<{ sent: string; answer: string }> = [];
  const app = testApp({
    engine: {
      wrapFetch: (inner) => async (input, init) => {
        const request = new Request(input, init);
        const path = new URL(request.url).pathname;
        const sent = path.endsWith("/token")
          ? new TextDecoder().decode(await request.clone().arrayBuffer())
          : "";
        const response = await inner(request);
        if (path.endsWith("/token")) exchanges.push({ sent, answer: await response.clone().text() });
        return response;
      },
    },
  });
  return { app, exchanges };
}

describe("privateKeyJwt connections apply and destroy", () => {
  it("Auth0: a client assertion for the tenant URL; no assertion or token in answers, receipts, logs or Server-Timing", async () => {
    const clientId = "pkjwt-m2m-auth0";
    const domain = await auth0Tenant(clientId, await serviceKeys());
    const connection = auth0Connection("auth0-pkjwt-run", domain, clientId);
    const { app, exchanges } = tokenObservingApp();
    const logged = captureLogs();
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;

    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: auth0Plan(connection, scope),
    });
    const applied = await res.text();
    expect(res.status, applied).toBe(200);
    expect((await auth0Client(domain, APP))?.callbacks).toEqual([url]);
    const sent = JSON.parse(exchanges[0]?.sent ?? "{}") as Record<string, string>;
    expect(sent).toMatchObject({ client_id: clientId, client_assertion_type: JWT_BEARER });
    expect(sent).not.toHaveProperty("client_secret");
    const claims = JSON.parse(atob((sent.client_assertion ?? "").split(".")[1] ?? "")) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({ iss: clientId, sub: clientId, aud: `https://${domain}/` });
    expect(Number(claims.exp) - Number(claims.iat)).toBeLessThanOrEqual(300);

    const ledger = await call(app, "GET", `/v1/scopes/preview/${scope}/ledger`);
    const seen = [applied, res.headers.get("server-timing") ?? "", await ledger.text()];
    const removed = await destroy(app, "preview", scope);
    seen.push(JSON.stringify(removed));
    expect((await auth0Client(domain, APP))?.callbacks).toEqual([]);
    for (const object of (await env.RECEIPTS.list({ prefix: "" })).objects)
      if (object.key.includes(scope)) seen.push((await (await env.RECEIPTS.get(object.key))?.text()) ?? "");
    const token = (JSON.parse(exchanges[0]?.answer ?? "{}") as { access_token: string }).access_token;
    expect(token).toMatch(/^emu\./);
    // Control: what was searched holds what the runs wrote.
    expect(seen.join("\n")).toContain(url);
    for (const text of [...seen, ...logged]) {
      expect(text).not.toContain(sent.client_assertion);
      expect(text).not.toContain(token);
    }
  });

  it("Okta: a service app's Bearer token bought with a client assertion for the org token endpoint (key by JWKS URL)", async () => {
    const clientId = "0oapkjwtservice";
    const org = await oktaOrg(clientId, { jwksUri: "https://sponson.test/.well-known/jwks.json" });
    const connection = oktaConnection("okta-pkjwt-run", org, clientId);
    const { app, exchanges } = tokenObservingApp();
    const logged = captureLogs();
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;

    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: oktaPlan(connection, scope),
    });
    const applied = await res.text();
    expect(res.status, applied).toBe(200);
    expect((await oktaApp(org, OKTA_APP))?.settings.oauthClient.redirect_uris).toEqual([url]);
    const sent = Object.fromEntries(new URLSearchParams(exchanges[0]?.sent ?? ""));
    expect(sent).toMatchObject({
      grant_type: "client_credentials",
      client_id: clientId,
      client_assertion_type: JWT_BEARER,
      scope: "okta.apps.read okta.apps.manage",
    });
    const claims = JSON.parse(atob((sent.client_assertion ?? "").split(".")[1] ?? "")) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({ iss: clientId, sub: clientId, aud: `https://${org}/oauth2/v1/token` });

    const removed = await destroy(app, "preview", scope);
    expect((await oktaApp(org, OKTA_APP))?.settings.oauthClient.redirect_uris).toEqual([]);
    const token = (JSON.parse(exchanges[0]?.answer ?? "{}") as { access_token: string }).access_token;
    expect(token.length).toBeGreaterThan(10);
    // One exchange served both runs (prepare, read, write of each).
    expect(exchanges).toHaveLength(1);
    const seen = [applied, res.headers.get("server-timing") ?? "", JSON.stringify(removed)];
    expect(seen.join("\n")).toContain(url);
    for (const text of [...seen, ...logged]) {
      expect(text).not.toContain(sent.client_assertion);
      expect(text).not.toContain(token);
    }
  });
});

describe("privateKeyJwt refusals: a problem naming the connection and the provider's code, no write", () => {
  it("Auth0: the service's key is not registered on the client → invalid_client", async () => {
    const clientId = "pkjwt-m2m-unregistered";
    const domain = await auth0Tenant(clientId, [await foreignKey()]);
    const connection = auth0Connection("auth0-pkjwt-unregistered", domain, clientId);
    const logged = captureLogs();
    const scope = freshPr();
    const res = await call(testApp(), "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: auth0Plan(connection, scope),
    });
    const text = await res.text();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(text).toContain("invalid_client");
    expect(text).toContain(connection);
    expect(text).not.toMatch(JWT);
    for (const line of logged) expect(line).not.toMatch(JWT);
    expect(await providerWrites(domain)).toBe(0);
    expect((await auth0Client(domain, APP))?.callbacks).toEqual([]);
  });

  it("Okta: the service's key is not registered on the service app → invalid_client", async () => {
    const clientId = "0oapkjwtunregistered";
    const org = await oktaOrg(clientId, { keys: [await foreignKey()] });
    const connection = oktaConnection("okta-pkjwt-unregistered", org, clientId);
    const scope = freshPr();
    const res = await call(testApp(), "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: oktaPlan(connection, scope),
    });
    const text = await res.text();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(text).toContain("invalid_client");
    expect(text).toContain(connection);
    expect(text).not.toMatch(JWT);
    expect(await providerWrites(org)).toBe(0);
  });

  it("Okta: an app that requires DPoP refuses the exchange with invalid_dpop_proof (docs/deploy.md)", async () => {
    const clientId = "0oapkjwtdpop";
    const org = await oktaOrg(clientId, { keys: await serviceKeys(), requireDpop: true });
    const connection = oktaConnection("okta-pkjwt-dpop", org, clientId);
    const scope = freshPr();
    const res = await call(testApp(), "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: oktaPlan(connection, scope),
    });
    expect(await res.text()).toContain("invalid_dpop_proof");
    expect(await providerWrites(org)).toBe(0);
  });
});

describe("the emulated token endpoints check the assertion as the providers do", () => {
  const mint = (clientId: string, audience: string, nowMs = Date.now()) =>
    mintClientAssertion(
      signingSecret(),
      FEDERATION_KEY_RING,
      { clientId, audience, nowMs },
      new SecretRegistry(),
    );

  async function auth0Exchange(domain: string, clientId: string, assertion: string) {
    const res = await emulatorStub(domain).fetch(`https://${domain}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        grant_type: "client_credentials",
        client_id: clientId,
        client_assertion_type: JWT_BEARER,
        client_assertion: assertion,
        audience: `https://${domain}/api/v2/`,
      }),
    });
    return { status: res.status, body: (await res.json()) as { error?: string; access_token?: string } };
  }

  async function oktaExchange(org: string, clientId: string, assertion: string) {
    const res = await emulatorStub(org).fetch(`https://${org}/oauth2/v1/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        scope: "okta.apps.read",
        client_id: clientId,
        client_assertion_type: JWT_BEARER,
        client_assertion: assertion,
      }).toString(),
    });
    return { status: res.status, body: (await res.json()) as { error?: string; error_description?: string } };
  }

  it("Auth0: accepts the right one (control); refuses wrong aud, expired, replayed jti", async () => {
    const clientId = "pkjwt-m2m-checks";
    const domain = await auth0Tenant(clientId, await serviceKeys());
    const good = await mint(clientId, `https://${domain}/`);
    expect((await auth0Exchange(domain, clientId, good)).status).toBe(200);
    const replayed = await auth0Exchange(domain, clientId, good);
    expect(replayed).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    const wrongAud = await auth0Exchange(
      domain,
      clientId,
      await mint(clientId, `https://${domain}/oauth/token/x`),
    );
    expect(wrongAud).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    const expired = await auth0Exchange(
      domain,
      clientId,
      await mint(clientId, `https://${domain}/`, Date.now() - 3_600_000),
    );
    expect(expired).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    const otherClient = await auth0Exchange(
      domain,
      clientId,
      await mint("someone-else", `https://${domain}/`),
    );
    expect(otherClient).toMatchObject({ status: 401, body: { error: "invalid_client" } });
  });

  it("Okta: accepts the right one (control); refuses wrong aud, expired, unknown kid, replayed jti", async () => {
    const clientId = "0oapkjwtchecks";
    const org = await oktaOrg(clientId, { keys: await serviceKeys() });
    const endpoint = `https://${org}/oauth2/v1/token`;
    const good = await mint(clientId, endpoint);
    expect((await oktaExchange(org, clientId, good)).status).toBe(200);
    expect(await oktaExchange(org, clientId, good)).toMatchObject({
      status: 401,
      body: {
        error: "invalid_client",
        error_description: "The client_assertion token has already been used.",
      },
    });
    expect((await oktaExchange(org, clientId, await mint(clientId, `https://${org}/`))).body).toMatchObject({
      error: "invalid_client",
      error_description:
        "The audience claim for client_assertion must be the endpoint invoked for the request.",
    });
    expect(
      (await oktaExchange(org, clientId, await mint(clientId, endpoint, Date.now() - 3_600_000))).body,
    ).toMatchObject({ error: "invalid_client", error_description: "The client_assertion token is expired." });
    const stranger = await oktaOrg("0oapkjwtstranger", { keys: [await foreignKey()] });
    const unknownKid = await oktaExchange(
      stranger,
      "0oapkjwtstranger",
      await mint("0oapkjwtstranger", `https://${stranger}/oauth2/v1/token`),
    );
    expect(unknownKid).toMatchObject({ status: 401, body: { error: "invalid_client" } });
  });
});
