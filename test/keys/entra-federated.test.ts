/**
 * docs/design.md, "Federated connections": the service is the OIDC issuer Entra trusts. Its
 * discovery document and JWKS are public; an Entra connection configured as federated signs in
 * with a client assertion the service mints for that connection's subject, and the emulated token
 * endpoint checks it as Entra does (issuer discovery, JWKS by kid, aud, sub, exp).
 */
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { SecretRegistry } from "../../shared/secrets";
import { connectionSubject, federationIssuer, mintFederationToken } from "../../workers/keys/federation";
import { apply, call, destroy, testApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { emulatorStub } from "../helpers/emulators";
import {
  ENTRA_LOGIN_HOST,
  graphApp,
  graphApplication,
  guid,
  seedEntraTenant,
  seedGraphApp,
} from "../helpers/emulators-entra";
import { freshPr } from "../helpers/engine";

const ISSUER = "https://sponson.test";
const AUDIENCE = "api://AzureADTokenExchange";
const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

const app = testApp();

/** A tenant whose app registration trusts the service's tokens for `trustedConnection` only. */
async function federatedTenant(trustedConnection: string) {
  const tenantId = guid();
  const clientId = guid();
  const application = guid();
  await seedEntraTenant([tenantId], {
    id: tenantId,
    clients: {
      [clientId]: {
        roles: ["Application.ReadWrite.All"],
        federatedCredentials: [
          { issuer: ISSUER, subject: connectionSubject(trustedConnection), audiences: [AUDIENCE] },
        ],
      },
    },
  });
  await seedGraphApp(tenantId, graphApplication(application, guid(), { web: [] }));
  return { tenantId, clientId, application };
}

function connect(name: string, tenant: { tenantId: string; clientId: string }): string {
  return registerConnection(name, {
    type: "entra",
    config: { tenant: tenant.tenantId },
    federated: { tenantId: tenant.tenantId, clientId: tenant.clientId },
  });
}

async function exchange(tenantId: string, clientId: string, assertion: string) {
  const res = await emulatorStub(ENTRA_LOGIN_HOST).fetch(
    `https://${ENTRA_LOGIN_HOST}/${tenantId}/oauth2/v2.0/token`,
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: clientId,
        client_assertion_type: JWT_BEARER,
        client_assertion: assertion,
        scope: "https://graph.microsoft.com/.default",
      }).toString(),
    },
  );
  return { status: res.status, body: (await res.json()) as { error?: string; error_codes?: number[] } };
}

const issuer = () => {
  const configured = federationIssuer(env as unknown as Record<string, unknown>);
  if (!configured)
    throw new Error("FEDERATION_SIGNING_KEY / SPONSON_PUBLIC_URL bindings missing (vitest.config.ts)");
  return configured;
};
const mint = (connection: string, audience = AUDIENCE, nowMs = Date.now()) =>
  mintFederationToken(issuer(), { connection, audience, nowMs }, new SecretRegistry());

describe("the service as an OIDC issuer", () => {
  it("publishes discovery (issuer = SPONSON_PUBLIC_URL) and public keys only, without credentials", async () => {
    const discovery = await app.request(`${ISSUER}/.well-known/openid-configuration`, {}, env);
    expect(discovery.status).toBe(200);
    const document = (await discovery.json()) as Record<string, unknown>;
    expect(document).toMatchObject({
      issuer: ISSUER,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
    });
    const jwks = await app.request(`${ISSUER}/.well-known/jwks.json`, {}, env);
    const { keys } = (await jwks.json()) as { keys: Array<Record<string, unknown>> };
    expect(keys.map((k) => k.kid)).toEqual(["test-federation-current"]);
    for (const key of keys)
      for (const part of ["d", "p", "q", "dp", "dq", "qi"]) expect(key).not.toHaveProperty(part);
  });
});

describe("Entra's token endpoint checks the service's assertion", () => {
  it("accepts the connection's own token (control)", async () => {
    const t = await federatedTenant("entra-fed-control");
    expect((await exchange(t.tenantId, t.clientId, await mint("entra-fed-control"))).status).toBe(200);
  });

  it("refuses a token for another connection's subject: AADSTS700213", async () => {
    const t = await federatedTenant("entra-fed-a");
    const res = await exchange(t.tenantId, t.clientId, await mint("entra-fed-b"));
    expect(res.status).toBe(400);
    expect(res.body.error_codes).toEqual([700213]);
  });

  it("refuses a wrong audience: AADSTS700212", async () => {
    const t = await federatedTenant("entra-fed-aud");
    const res = await exchange(t.tenantId, t.clientId, await mint("entra-fed-aud", "sts.amazonaws.com"));
    expect(res.body.error_codes).toEqual([700212]);
  });

  it("refuses an expired token: AADSTS700024", async () => {
    const t = await federatedTenant("entra-fed-exp");
    const res = await exchange(
      t.tenantId,
      t.clientId,
      await mint("entra-fed-exp", AUDIENCE, Date.now() - 3_600_000),
    );
    expect(res.body.error_codes).toEqual([700024]);
  });

  it("refuses a token signed by the retired key: AADSTS700027 (the JWKS no longer publishes it)", async () => {
    const t = await federatedTenant("entra-fed-kid");
    const { privateKey } = await generateKeyPair("RS256", { extractable: true });
    expect(await exportJWK(privateKey)).toHaveProperty("d");
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "RS256", kid: "test-federation-retired" })
      .setIssuer(ISSUER)
      .setSubject(connectionSubject("entra-fed-kid"))
      .setAudience(AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(privateKey);
    const res = await exchange(t.tenantId, t.clientId, token);
    expect(res.body.error_codes).toEqual([700027]);
  });
});

describe("a federated Entra connection", () => {
  it("applies and destroys through federated credentials; no minted token in the answer or the receipt", async () => {
    const t = await federatedTenant("entra-fed-run");
    const connection = connect("entra-fed-run", t);
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const plan = {
      version: 2,
      lines: [
        {
          id: "cb",
          op: "entra.redirectUri",
          connection,
          params: { application: t.application, kind: "web", url },
        },
      ],
    };
    const applied = await apply(app, "preview", scope, plan as never);
    expect(applied.run.status).toBe("succeeded");
    expect((await graphApp(t.tenantId, t.application))?.web.redirectUris).toEqual([url]);
    const ledger = await call(app, "GET", `/v1/scopes/preview/${scope}/ledger`);
    const text = JSON.stringify(applied) + (await ledger.text());
    expect(text).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/);
    await destroy(app, "preview", scope);
    expect((await graphApp(t.tenantId, t.application))?.web.redirectUris).toEqual([]);
  });

  it("an exchange Entra refuses fails the run naming the cloud's code, without the assertion", async () => {
    const t = await federatedTenant("entra-fed-someone-else");
    const connection = connect("entra-fed-refused", t);
    const scope = freshPr();
    const plan = {
      version: 2,
      lines: [
        {
          id: "cb",
          op: "entra.redirectUri",
          connection,
          params: { application: t.application, kind: "web", url: `https://${scope}.preview.example.com/cb` },
        },
      ],
    };
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, { plan });
    const text = await res.text();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(text).toContain("AADSTS700213");
    expect(text).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/);
    expect((await graphApp(t.tenantId, t.application))?.web.redirectUris).toEqual([]);
  });
});
