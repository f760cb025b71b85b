/**
 * The emulated AWS STS checks the service's token as AWS does (issuer's discovery and JWKS, aud
 * among the OIDC provider's client ids, the role's trust policy on sub, exp), in STS's codes; the
 * temporary credentials it issues work on S3 and Cognito only with their session token.
 */
import { AwsV4Signer } from "aws4fetch";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { connectionSubject } from "../../../workers/keys/federation";
import { emulatorStub } from "../../helpers/emulators";
import {
  assumeRole,
  freshRoleArn,
  mintFor,
  STS_AUDIENCE,
  TEST_ISSUER,
  trustingRole,
} from "../../helpers/emulators-aws-sts";
import { cognitoHost, seedCognito, userPoolClient } from "../../helpers/emulators-cognito";
import { freshS3Bucket, s3Host, seedS3 } from "../../helpers/emulators-s3";

const ISSUER = TEST_ISSUER;

describe("the emulated STS checks the service's token as AWS does", () => {
  it("accepts the connection's own token: temporary credentials with a session token (control)", async () => {
    const role = await trustingRole("aws-fed-control");
    const res = await assumeRole(role, await mintFor("aws-fed-control"));
    expect(res.status).toBe(200);
    expect(res.text).toContain("<AssumeRoleWithWebIdentityResponse");
    expect(res.text).toMatch(/<AccessKeyId>ASIA[A-Z2-7]{16}<\/AccessKeyId>/);
    expect(res.text).toMatch(/<SessionToken>[^<]+<\/SessionToken>/);
    expect(res.text).toContain(`<SubjectFromWebIdentityToken>${connectionSubject("aws-fed-control")}`);
  });

  it("refuses a token for another connection's subject: 403 AccessDenied", async () => {
    const role = await trustingRole("aws-fed-a");
    const res = await assumeRole(role, await mintFor("aws-fed-b"));
    expect([res.status, res.code]).toEqual([403, "AccessDenied"]);
    expect(res.text).toContain("Not authorized to perform sts:AssumeRoleWithWebIdentity");
    expect(res.text).toContain("<Type>Sender</Type>");
  });

  it("refuses a wrong audience: 400 InvalidIdentityToken, Incorrect token audience", async () => {
    const role = await trustingRole("aws-fed-aud");
    const res = await assumeRole(role, await mintFor("aws-fed-aud", "api://AzureADTokenExchange"));
    expect([res.status, res.code]).toEqual([400, "InvalidIdentityToken"]);
    expect(res.text).toContain("Incorrect token audience");
  });

  it("refuses an expired token: 400 ExpiredTokenException", async () => {
    const role = await trustingRole("aws-fed-exp");
    const res = await assumeRole(role, await mintFor("aws-fed-exp", STS_AUDIENCE, Date.now() - 3_600_000));
    expect([res.status, res.code]).toEqual([400, "ExpiredTokenException"]);
  });

  it("refuses a token signed by the retired key (no longer published): 400 InvalidIdentityToken", async () => {
    const role = await trustingRole("aws-fed-kid");
    const { privateKey } = await generateKeyPair("RS256", { extractable: true });
    expect(await exportJWK(privateKey)).toHaveProperty("d");
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "RS256", kid: "test-federation-retired" })
      .setIssuer(ISSUER)
      .setSubject(connectionSubject("aws-fed-kid"))
      .setAudience(STS_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(privateKey);
    const res = await assumeRole(role, token);
    expect([res.status, res.code]).toEqual([400, "InvalidIdentityToken"]);
  });

  it("refuses a role that does not exist: 403 AccessDenied", async () => {
    const roleArn = freshRoleArn();
    const res = await assumeRole(roleArn, await mintFor("aws-fed-nobody"));
    expect([res.status, res.code]).toEqual([403, "AccessDenied"]);
  });
});

/** Temporary credentials for a fresh role trusted for `connection`. */
async function temporaryCredentials(connection: string) {
  const roleArn = await trustingRole(connection);
  const res = await assumeRole(roleArn, await mintFor(connection));
  expect(res.status).toBe(200);
  return {
    roleArn,
    accessKeyId: res.field("AccessKeyId") as string,
    secretAccessKey: res.field("SecretAccessKey") as string,
    sessionToken: res.field("SessionToken") as string,
  };
}

async function s3Get(
  bucket: string,
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
) {
  const signer = new AwsV4Signer({
    url: `https://${s3Host(bucket)}/?cors`,
    method: "GET",
    headers: { "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
    service: "s3",
    region: "eu-west-1",
    ...credentials,
  });
  const signed = await signer.sign();
  const res = await emulatorStub(s3Host(bucket)).fetch(signed.url.toString(), { headers: signed.headers });
  const text = await res.text();
  return { status: res.status, code: text.match(/<Code>([^<]*)<\/Code>/)?.[1] };
}

describe("S3 and Cognito take temporary credentials only with their session token", () => {
  it("S3: with the token, the role's access (control); without it InvalidAccessKeyId; another's InvalidToken", async () => {
    const creds = await temporaryCredentials("aws-tmp-s3");
    const { bucket } = freshS3Bucket("tmp");
    await seedS3(bucket, { bucket: { region: "eu-west-1" }, roles: { [creds.roleArn]: { access: "read" } } });
    expect((await s3Get(bucket, creds)).code).toBe("NoSuchCORSConfiguration");
    const { sessionToken: _, ...withoutToken } = creds;
    expect(await s3Get(bucket, withoutToken)).toEqual({ status: 403, code: "InvalidAccessKeyId" });
    const other = await temporaryCredentials("aws-tmp-s3-other");
    expect(await s3Get(bucket, { ...creds, sessionToken: other.sessionToken })).toEqual({
      status: 400,
      code: "InvalidToken",
    });
    // A role the bucket grants nothing: Access Denied.
    expect(await s3Get(bucket, other)).toEqual({ status: 403, code: "AccessDenied" });
  });

  it("Cognito: with the token it answers (control); without it UnrecognizedClientException", async () => {
    const creds = await temporaryCredentials("aws-tmp-cognito");
    const id = crypto.randomUUID().replaceAll("-", "");
    const pool = `eu-west-1_${id.slice(0, 9)}`;
    const client = id.slice(0, 26);
    await seedCognito({
      pool,
      clients: [userPoolClient(pool, client)],
      roles: { [creds.roleArn]: { access: "read" } },
    });
    const describe = async (c: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) => {
      const signer = new AwsV4Signer({
        url: `https://${cognitoHost()}/`,
        method: "POST",
        headers: {
          "content-type": "application/x-amz-json-1.1",
          "x-amz-target": "AWSCognitoIdentityProviderService.DescribeUserPoolClient",
        },
        body: JSON.stringify({ UserPoolId: pool, ClientId: client }),
        service: "cognito-idp",
        region: "eu-west-1",
        ...c,
      });
      const signed = await signer.sign();
      const res = await emulatorStub(cognitoHost()).fetch(signed.url.toString(), {
        method: "POST",
        headers: signed.headers,
        body: signed.body as string,
      });
      return { status: res.status, type: ((await res.json()) as { __type?: string }).__type };
    };
    expect((await describe(creds)).status).toBe(200);
    const { sessionToken: _, ...withoutToken } = creds;
    expect(await describe(withoutToken)).toEqual({ status: 400, type: "UnrecognizedClientException" });
  });
});
