/**
 * `@azure/identity`'s ClientAssertionCredential against the Entra emulator's token endpoint: the
 * callback returns a JWT signed for `api://AzureADTokenExchange` by the suite's issuer stand-in
 * (dev/emulators/oidc-issuer/, reached by the emulator through the server's proxy path), and the
 * app registration's federated identity credential trusts that issuer for one subject only, as the
 * service's federated Entra connections rely on (docs/design.md "Federated connections").
 */
import { ClientAssertionCredential } from "@azure/identity";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { entraKeys } from "../../dev/emulators/entra";
import { emulatorFetch, seed, sent, unique } from "./emulators";

const ISSUER_HOST = `${unique("sdk-entra")}.issuer.test`;
const ISSUER = `https://sponson-sdk.test/v1/emulators/${ISSUER_HOST}`;
const AUDIENCE = "api://AzureADTokenExchange";
const SUBJECT = "sponson:connection:entra-federated";
const KID = "sdk-entra-federation-1";
const GRAPH = "https://graph.microsoft.com/.default";

const tenantId = crypto.randomUUID();
const clientId = crypto.randomUUID();
let privateKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256", { extractable: true });
  privateKey = pair.privateKey as CryptoKey;
  await seed(ISSUER_HOST, {
    discovery: {
      issuer: ISSUER,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
    },
    jwks: { keys: [{ ...(await exportJWK(pair.publicKey)), kid: KID, alg: "RS256", use: "sig" }] },
  });
  // No secret: the app signs in only with its federated identity credential.
  await seed("login.microsoftonline.com", {
    [entraKeys.tenant(tenantId)]: {
      id: tenantId,
      clients: {
        [clientId]: {
          roles: ["Application.ReadWrite.All"],
          federatedCredentials: [{ issuer: ISSUER, subject: SUBJECT, audiences: [AUDIENCE] }],
        },
      },
    },
  });
});

function assertion(subject: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "RS256", kid: KID, typ: "JWT" })
    .setIssuer(ISSUER)
    .setSubject(subject)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(privateKey);
}

interface PipelineRequestLike {
  url: string;
  method: string;
  headers: { toJSON(): Record<string, string> };
  body?: unknown;
}

/** The @azure/core-rest-pipeline HttpClient contract, sending through the origin-rewriting fetch. */
const httpClient = {
  async sendRequest(request: PipelineRequestLike) {
    const res = await emulatorFetch(request.url, {
      method: request.method,
      headers: request.headers.toJSON(),
      body: request.body as BodyInit | undefined,
    });
    const headers = new Map([...res.headers].map(([k, v]) => [k.toLowerCase(), v]));
    return {
      request,
      status: res.status,
      bodyAsText: await res.text(),
      headers: {
        get: (n: string) => headers.get(n.toLowerCase()),
        has: (n: string) => headers.has(n.toLowerCase()),
        set: (n: string, v: string) => void headers.set(n.toLowerCase(), v),
        delete: (n: string) => void headers.delete(n.toLowerCase()),
        toJSON: () => Object.fromEntries(headers),
        [Symbol.iterator]: () => headers.entries(),
      },
    };
  },
};

const credential = (subject: string) =>
  new ClientAssertionCredential(tenantId, clientId, () => assertion(subject), {
    httpClient: httpClient as never,
  });

const tokenRequests = () => sent.filter((r) => new URL(r.url).pathname === `/${tenantId}/oauth2/v2.0/token`);

describe("@azure/identity ClientAssertionCredential", () => {
  it("gets a Graph token with an assertion the federated credential trusts", async () => {
    const token = await credential(SUBJECT).getToken(GRAPH);
    expect(token.token.split(".")).toHaveLength(3);
    expect(token.expiresOnTimestamp).toBeGreaterThan(Date.now());
    expect(tokenRequests()).toHaveLength(1);
  });

  it("another subject is refused with AADSTS700213, surfaced by the SDK", async () => {
    const before = tokenRequests().length;
    const err = await credential("sponson:connection:someone-else")
      .getToken(GRAPH)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).toContain("AADSTS700213");
    // The refusal came from the token endpoint, not from the SDK before sending.
    expect(tokenRequests().length).toBeGreaterThan(before);
  });
});
