/**
 * The emulated token endpoints refuse a client assertion that lives longer than the provider
 * allows (Auth0: five minutes; Okta: an hour ahead), as the providers do.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { auth0Keys, type M2mClient } from "../../dev/emulators/auth0/state";
import { oktaKeys } from "../../dev/emulators/okta";
import { emulatorStub, freshAuth0Domain } from "../helpers/emulators";
import { freshOktaOrg } from "../helpers/emulators-okta";

const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

async function keyPair() {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: "lifetime-key", alg: "ES256" } };
}

async function assertion(privateKey: CryptoKey, clientId: string, aud: string, lifetimeSeconds: number) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: "lifetime-key" })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(aud)
    .setIssuedAt(now)
    .setExpirationTime(now + lifetimeSeconds)
    .setJti(crypto.randomUUID())
    .sign(privateKey);
}

describe("client assertion lifetime", () => {
  it("Okta: one minute is taken (control); exp two hours ahead is refused", async () => {
    const clientId = "0oalifetime";
    const org = freshOktaOrg();
    const { privateKey, jwk } = await keyPair();
    await emulatorStub(org).seed({
      [oktaKeys.serviceApp(clientId)]: { scopes: ["okta.apps.read"], keys: [jwk] },
    });
    const endpoint = `https://${org}/oauth2/v1/token`;
    const exchange = async (lifetime: number) => {
      const res = await emulatorStub(org).fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          scope: "okta.apps.read",
          client_id: clientId,
          client_assertion_type: JWT_BEARER,
          client_assertion: await assertion(privateKey, clientId, endpoint, lifetime),
        }).toString(),
      });
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    };
    expect((await exchange(60)).status).toBe(200);
    expect(await exchange(7_200)).toMatchObject({ status: 401, body: { error: "invalid_client" } });
  });

  it("Auth0: five minutes are taken (control); two hours are refused", async () => {
    const clientId = "lifetime-m2m";
    const domain = freshAuth0Domain("lifetime");
    const { privateKey, jwk } = await keyPair();
    await emulatorStub(domain).seed({
      [auth0Keys.m2m(clientId)]: {
        privateKeyJwt: { keys: [jwk] },
        scopes: ["read:clients"],
      } satisfies M2mClient,
    });
    const exchange = async (lifetime: number) => {
      const res = await emulatorStub(domain).fetch(`https://${domain}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          grant_type: "client_credentials",
          client_id: clientId,
          client_assertion_type: JWT_BEARER,
          client_assertion: await assertion(privateKey, clientId, `https://${domain}/`, lifetime),
          audience: `https://${domain}/api/v2/`,
        }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    };
    expect((await exchange(300)).status).toBe(200);
    expect(await exchange(7_200)).toMatchObject({ status: 401, body: { error: "invalid_client" } });
  });
});
