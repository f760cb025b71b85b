/**
 * `@aws-sdk/client-sts` AssumeRoleWithWebIdentity against the STS emulator, which verifies the web
 * identity token against its issuer's discovery document and JWKS; the temporary credentials it
 * returns then sign `@aws-sdk/client-s3` requests, which the S3 emulator takes only with their
 * session token. The issuer is the suite's own (dev/emulators/oidc-issuer/), reached by the
 * emulated STS through the emulator server's proxy path.
 */
import { GetBucketCorsCommand, PutBucketCorsCommand, S3Client } from "@aws-sdk/client-s3";
import { AssumeRoleWithWebIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { STS_OBJECT, stsKeys } from "../../dev/emulators/aws-sts/state";
import { s3Keys } from "../../dev/emulators/s3";
import { emulatorFetch, seed, unique } from "./emulators";

const REGION = "eu-west-1";
const ISSUER_HOST = `${unique("sdk")}.issuer.test`;
const ISSUER = `https://sponson-sdk.test/v1/emulators/${ISSUER_HOST}`;
const AUDIENCE = "sts.amazonaws.com";
const KID = "sdk-federation-1";

interface SmithyRequest {
  method: string;
  protocol: string;
  hostname: string;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

function queryString(query: SmithyRequest["query"] = {}): string {
  const parts = Object.entries(query).flatMap(([k, v]) =>
    v === null
      ? [encodeURIComponent(k)]
      : [v].flat().map((x) => `${encodeURIComponent(k)}=${encodeURIComponent(x)}`),
  );
  return parts.length > 0 ? `?${parts.join("&")}` : "";
}

/** Sends the SDK's request through the origin-rewriting fetch; nothing else is touched. */
const emulatorHandler = {
  async handle(request: SmithyRequest) {
    const url = `${request.protocol}//${request.hostname}${request.path}${queryString(request.query)}`;
    const res = await emulatorFetch(url, {
      method: request.method,
      headers: request.headers,
      body: request.body as BodyInit | undefined,
    });
    return {
      response: {
        statusCode: res.status,
        reason: res.statusText,
        headers: Object.fromEntries(res.headers),
        body: new Uint8Array(await res.arrayBuffer()),
      },
    };
  },
};

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
  await seed(STS_OBJECT, { [stsKeys.provider(ISSUER)]: { url: ISSUER, clientIds: [AUDIENCE] } });
});

async function token(subject: string, options: { audience?: string; expiresAt?: number } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "RS256", kid: KID, typ: "JWT" })
    .setIssuer(ISSUER)
    .setSubject(subject)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(options.expiresAt !== undefined ? options.expiresAt - 300 : now)
    .setExpirationTime(options.expiresAt ?? now + 300)
    .sign(privateKey);
}

/** A role trusting `subject` only, with full access to a fresh bucket. */
async function roleWithBucket(subject: string) {
  const roleArn = `arn:aws:iam::123456789012:role/${unique("sdk-role")}`;
  await seed(STS_OBJECT, {
    [stsKeys.role(roleArn)]: { trust: { issuer: ISSUER, subject, audience: AUDIENCE } },
  });
  const bucket = unique("sdk-fed");
  await seed(`${bucket}.s3.${REGION}.amazonaws.com`, {
    [s3Keys.bucket]: { region: REGION },
    [s3Keys.role(roleArn)]: { access: "full" },
  });
  return { roleArn, bucket };
}

const sts = () =>
  new STSClient({
    region: REGION,
    requestHandler: emulatorHandler as unknown as STSClient["config"]["requestHandler"],
    maxAttempts: 1,
  });

const s3 = (credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) =>
  new S3Client({
    region: REGION,
    credentials,
    requestHandler: emulatorHandler as unknown as S3Client["config"]["requestHandler"],
    maxAttempts: 1,
  });

const assume = (roleArn: string, webIdentityToken: string) =>
  sts().send(
    new AssumeRoleWithWebIdentityCommand({
      RoleArn: roleArn,
      RoleSessionName: "sponson-sdk",
      WebIdentityToken: webIdentityToken,
      DurationSeconds: 900,
    }),
  );

describe("@aws-sdk/client-sts AssumeRoleWithWebIdentity", () => {
  it("gets temporary credentials that work with @aws-sdk/client-s3, with their session token only", async () => {
    const subject = "sponson:connection:s3-sdk";
    const { roleArn, bucket } = await roleWithBucket(subject);
    const out = await assume(roleArn, await token(subject));
    expect(out.SubjectFromWebIdentityToken).toBe(subject);
    expect(out.AssumedRoleUser?.Arn).toMatch(
      /^arn:aws:sts::123456789012:assumed-role\/sdk-role-[\w-]+\/sponson-sdk$/,
    );
    const c = out.Credentials;
    expect(c?.AccessKeyId).toMatch(/^ASIA/);
    expect(c?.Expiration).toBeInstanceOf(Date);
    const credentials = {
      accessKeyId: c?.AccessKeyId ?? "",
      secretAccessKey: c?.SecretAccessKey ?? "",
      sessionToken: c?.SessionToken ?? "",
    };
    const rules = [{ ID: "previews", AllowedMethods: ["GET"], AllowedOrigins: ["https://pr-1.example.com"] }];
    await s3(credentials).send(
      new PutBucketCorsCommand({ Bucket: bucket, CORSConfiguration: { CORSRules: rules } }),
    );
    expect((await s3(credentials).send(new GetBucketCorsCommand({ Bucket: bucket }))).CORSRules).toEqual(
      rules,
    );
    const { sessionToken: _, ...withoutToken } = credentials;
    const refused = await s3(withoutToken)
      .send(new GetBucketCorsCommand({ Bucket: bucket }))
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: "InvalidAccessKeyId", $metadata: { httpStatusCode: 403 } });
  });

  it("refusals surface as the SDK's errors: another subject, a wrong audience, an expired token", async () => {
    const { roleArn } = await roleWithBucket("sponson:connection:s3-sdk-a");
    const other = await assume(roleArn, await token("sponson:connection:s3-sdk-b")).catch((e: unknown) => e);
    expect(other).toMatchObject({ name: "AccessDenied", $metadata: { httpStatusCode: 403 } });
    const audience = await assume(
      roleArn,
      await token("sponson:connection:s3-sdk-a", { audience: "api://AzureADTokenExchange" }),
    ).catch((e: unknown) => e);
    expect(audience).toMatchObject({
      name: "InvalidIdentityTokenException",
      message: "Incorrect token audience",
    });
    const expired = await assume(
      roleArn,
      await token("sponson:connection:s3-sdk-a", { expiresAt: Math.floor(Date.now() / 1000) - 3600 }),
    ).catch((e: unknown) => e);
    expect(expired).toMatchObject({ name: "ExpiredTokenException", $metadata: { httpStatusCode: 400 } });
  });
});
