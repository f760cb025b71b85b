/**
 * google-auth-library's external-account client (Workload Identity Federation) against the STS and
 * IAM credentials emulators: an IdentityPoolClient whose subject token is an issuer's JWT exchanges
 * it at sts.googleapis.com/v1/token, impersonates the service account through
 * iamcredentials.googleapis.com, and the access token it ends with reads a bucket. The issuer is a
 * stand-in seeded with a key pair (dev/emulators/oidc-issuer/): the STS emulator fetches its
 * discovery and JWKS as Google would the service's.
 */
import { IdentityPoolClient } from "google-auth-library";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { gcsKeys } from "../../dev/emulators/gcs";
import { googleStsKeys, principalOf, WORKLOAD_IDENTITY_USER } from "../../dev/emulators/google-sts/state";
import { OIDC_ISSUER_HOST, oidcIssuerKeys } from "../../dev/emulators/oidc-issuer";
import { emulatorFetch, seed, sent, toEmulator, unique } from "./emulators";

const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";
/** The emulator server proxies `/v1/emulators/<host>/…`: the issuer's documents live under it. */
const ISSUER = `https://sponson-sdk.test/v1/emulators/${OIDC_ISSUER_HOST}`;
const SUBJECT = `sponson:connection:${unique("gcs-sdk")}`;
const number = String(100_000_000 + Math.floor(Math.random() * 800_000_000));
const audience = `//iam.googleapis.com/projects/${number}/locations/global/workloadIdentityPools/sponson/providers/${unique("sdk")}`;
const serviceAccount = `${unique("sdk-fed")}@sponson-tests.iam.gserviceaccount.com`;
const bucket = unique("bucket");
const generateUrl = `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${serviceAccount}:generateAccessToken`;
let signingKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256", { extractable: true });
  signingKey = pair.privateKey;
  await seed(OIDC_ISSUER_HOST, {
    [oidcIssuerKeys.discovery]: {
      issuer: ISSUER,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
    },
    [oidcIssuerKeys.jwks]: {
      keys: [{ ...(await exportJWK(pair.publicKey)), kid: "sdk-1", alg: "RS256", use: "sig" }],
    },
  });
  await seed("sts.googleapis.com", {
    [googleStsKeys.provider(audience)]: { issuer: ISSUER, subjects: [SUBJECT] },
  });
  await seed("iamcredentials.googleapis.com", {
    [googleStsKeys.policy(serviceAccount)]: {
      bindings: { [WORKLOAD_IDENTITY_USER]: [principalOf(audience, SUBJECT)] },
    },
  });
  await seed("storage.googleapis.com", {
    [gcsKeys.bucket(bucket)]: { members: { [serviceAccount]: "admin" }, metageneration: 1, cors: [] },
  });
});

async function subjectToken(sub = SUBJECT, aud = `https:${audience}`): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "RS256", kid: "sdk-1", typ: "JWT" })
    .setIssuer(ISSUER)
    .setSubject(sub)
    .setAudience(aud)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(signingKey);
}

function externalAccountClient(token: () => Promise<string>) {
  return new IdentityPoolClient({
    type: "external_account",
    audience,
    subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
    // StsCredentials sends with a transporter of its own, not `transporterOptions`: its URL is the
    // emulator's. The impersonation call goes through the client's transporter (emulatorFetch).
    token_url: toEmulator("https://sts.googleapis.com/v1/token"),
    service_account_impersonation_url: generateUrl,
    subject_token_supplier: { getSubjectToken: token },
    scopes: [CLOUD_PLATFORM],
    transporterOptions: { fetchImplementation: emulatorFetch },
  } as ConstructorParameters<typeof IdentityPoolClient>[0]);
}

describe("google-auth-library IdentityPoolClient against the STS and IAM credentials emulators", () => {
  it("exchanges the issuer's token, impersonates the account and reads the bucket with the result", async () => {
    sent.length = 0;
    const client = externalAccountClient(() => subjectToken());
    const { token } = await client.getAccessToken();
    expect(token).toMatch(/^ya29\./);
    expect(sent.map((r) => `${r.method} ${r.url}`)).toEqual([`POST ${generateUrl}`]);
    const res = await fetch(toEmulator(`https://storage.googleapis.com/storage/v1/b/${bucket}`), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
  });

  it("a token for another subject is refused with STS's own error, which the client reports", async () => {
    const client = externalAccountClient(() => subjectToken("sponson:connection:someone-else"));
    await expect(client.getAccessToken()).rejects.toThrow(/unauthorized_client/);
  });

  it("a wrong audience is refused: invalid_grant", async () => {
    const client = externalAccountClient(() => subjectToken(SUBJECT, "https://sts.example.com/other"));
    await expect(client.getAccessToken()).rejects.toThrow(/invalid_grant/);
  });
});
