/**
 * docs/design.md, "Provider tokens": a rejected token is dropped from the cache and the fleet's
 * object and the call is made once more. AWS never answers 401: S3 says 400 ExpiredToken /
 * InvalidToken or 403 InvalidAccessKeyId, Cognito 400 ExpiredTokenException /
 * UnrecognizedClientException. Temporary credentials revoked early (role sessions revoked) are
 * injected here as the emulators' own refusal bodies in front of them.
 */
import { describe, expect, it } from "vitest";
import { stsError } from "../../dev/emulators/aws-sts/responses";
import { awsError } from "../../dev/emulators/cognito/responses";
import { s3Error } from "../../dev/emulators/s3/responses";
import { systemClock } from "../../shared/clock";
import { apply, call, destroy, testApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { trustingRole } from "../helpers/emulators-aws-sts";
import { COGNITO_REGION, cognitoClient, seedCognito, userPoolClient } from "../helpers/emulators-cognito";
import { freshS3Bucket, S3_REGION, s3Bucket, seedS3 } from "../helpers/emulators-s3";
import { freshPr } from "../helpers/engine";

interface Sent {
  url: string;
  method: string;
  keyId: string;
  answer: string;
  status: number;
}

/** The app, recording every request; `inject` may answer one instead of its host. */
function recordedApp(inject: (request: Request, sent: Sent[]) => Response | undefined) {
  const sent: Sent[] = [];
  const app = testApp({
    engine: {
      clock: systemClock,
      isolateTokenCache: false,
      wrapFetch: (inner) => async (input, init) => {
        const request = new Request(input, init);
        const response = inject(request, sent) ?? (await inner(request));
        sent.push({
          url: request.url,
          method: request.method,
          keyId: request.headers.get("authorization")?.match(/Credential=([A-Z0-9]+)\//)?.[1] ?? "",
          answer: await response.clone().text(),
          status: response.status,
        });
        return response;
      },
    },
  });
  return { app, sent };
}

const isSts = (s: { url: string }) => new URL(s.url).host.startsWith("sts.");
const stsKeyIds = (sent: Sent[]) =>
  sent.filter(isSts).map((s) => s.answer.match(/<AccessKeyId>([^<]+)<\/AccessKeyId>/)?.[1]);

async function s3Federated(name: string) {
  const roleArn = await trustingRole(name);
  const { bucket } = freshS3Bucket("rej");
  await seedS3(bucket, {
    bucket: { region: S3_REGION, rules: [] },
    roles: { [roleArn]: { access: "full" } },
  });
  registerConnection(name, { type: "s3", config: { region: S3_REGION }, federated: { roleArn } });
  return bucket;
}

const s3Plan = (connection: string, bucket: string, origin: string) => ({
  version: 2,
  lines: [{ id: "cors", op: "s3.corsOrigin", connection, params: { bucket, rule: "previews", origin } }],
});

const onBucket = (request: Request, bucket: string) => new URL(request.url).host.startsWith(`${bucket}.s3.`);

describe("temporary credentials S3 refuses are dropped and the call is made once more", () => {
  it("a read answered 400 ExpiredToken: one new exchange, success, and the fleet's object serves the new credentials", async () => {
    const bucket = await s3Federated("s3-rej-read");
    let refused = false;
    const { app, sent } = recordedApp((request) => {
      if (refused || !onBucket(request, bucket)) return undefined;
      refused = true;
      return s3Error(400, "ExpiredToken", "The provided token has expired.");
    });
    const scope = freshPr();
    const origin = `https://${scope}.preview.example.com`;
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: s3Plan("s3-rej-read", bucket, origin),
    });
    expect(res.status).toBe(200);
    expect((await s3Bucket(bucket))?.rules?.[0]?.AllowedOrigin).toEqual([origin]);
    const [first, second] = stsKeyIds(sent);
    expect(sent.filter(isSts)).toHaveLength(2);
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);

    // No isolate cache: the destroy takes the fleet's credentials, the new ones, with no exchange.
    const before = sent.length;
    expect((await destroy(app, "preview", scope)).run.status).toBe("succeeded");
    const later = sent.slice(before);
    expect(later.filter(isSts)).toEqual([]);
    const keys = later.filter((s) => new URL(s.url).host.startsWith(`${bucket}.s3.`)).map((s) => s.keyId);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).toBe(second);
  });

  it("a write answered 400 InvalidToken was refused, nothing written: sent once more with fresh credentials", async () => {
    const bucket = await s3Federated("s3-rej-write");
    let refused = false;
    const { app, sent } = recordedApp((request) => {
      if (refused || !onBucket(request, bucket) || request.method !== "PUT") return undefined;
      refused = true;
      return s3Error(400, "InvalidToken", "The provided token is malformed or otherwise invalid.");
    });
    const scope = freshPr();
    const origin = `https://${scope}.preview.example.com`;
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: s3Plan("s3-rej-write", bucket, origin),
    });
    expect(res.status).toBe(200);
    expect(sent.filter(isSts)).toHaveLength(2);
    expect(sent.filter((s) => s.method === "PUT" && s.url.includes(`${bucket}.s3.`))).toHaveLength(2);
    expect((await s3Bucket(bucket))?.rules?.[0]?.AllowedOrigin).toEqual([origin]);
  });

  it("once only: credentials refused again (403 InvalidAccessKeyId) fail the run after one new exchange", async () => {
    const bucket = await s3Federated("s3-rej-always");
    const { app, sent } = recordedApp((request) =>
      onBucket(request, bucket)
        ? s3Error(
            403,
            "InvalidAccessKeyId",
            "The AWS Access Key Id you provided does not exist in our records.",
          )
        : undefined,
    );
    const scope = freshPr();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: s3Plan("s3-rej-always", bucket, `https://${scope}.preview.example.com`),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(await res.text()).toContain("InvalidAccessKeyId");
    expect(sent.filter(isSts)).toHaveLength(2);
    expect(sent.filter((s) => new URL(s.url).host.startsWith(`${bucket}.s3.`))).toHaveLength(2);
    expect((await s3Bucket(bucket))?.rules).toEqual([]);
  });

  it("a write whose first attempt may have landed (a 500) is not re-sent with fresh credentials", async () => {
    const bucket = await s3Federated("s3-rej-landed");
    let puts = 0;
    const { app, sent } = recordedApp((request) => {
      if (!onBucket(request, bucket) || request.method !== "PUT") return undefined;
      puts += 1;
      if (puts === 1)
        return s3Error(500, "InternalError", "We encountered an internal error. Please try again.");
      return s3Error(400, "ExpiredToken", "The provided token has expired.");
    });
    const scope = freshPr();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: s3Plan("s3-rej-landed", bucket, `https://${scope}.preview.example.com`),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    // The helper's own retry of the 500, then no third send on new credentials.
    expect(sent.filter((s) => s.method === "PUT" && s.url.includes(`${bucket}.s3.`))).toHaveLength(2);
    expect(sent.filter(isSts)).toHaveLength(1);
  });
});

describe("temporary credentials Cognito refuses are dropped and the call is made once more", () => {
  it("400 UnrecognizedClientException on the read: one new exchange, success", async () => {
    const roleArn = await trustingRole("cognito-rej");
    const id = crypto.randomUUID().replaceAll("-", "");
    const pool = `${COGNITO_REGION}_${id.slice(0, 9)}`;
    const client = id.slice(0, 26);
    await seedCognito({
      pool,
      clients: [userPoolClient(pool, client, { CallbackURLs: ["https://app.example.com/cb"] })],
      roles: { [roleArn]: { access: "full" } },
    });
    registerConnection("cognito-rej", {
      type: "cognito",
      config: { region: COGNITO_REGION },
      federated: { roleArn },
    });
    let refused = false;
    const { app, sent } = recordedApp((request) => {
      if (refused || !new URL(request.url).host.startsWith("cognito-idp.")) return undefined;
      refused = true;
      return awsError(
        "UnrecognizedClientException",
        "The security token included in the request is invalid.",
      );
    });
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const plan = {
      version: 2,
      lines: [
        {
          id: "cb",
          op: "cognito.callbackUrl",
          connection: "cognito-rej",
          params: { userPool: pool, client, url },
        },
      ],
    };
    const applied = await apply(app, "preview", scope, plan as never);
    expect(applied.run.status).toBe("succeeded");
    expect(sent.filter(isSts)).toHaveLength(2);
    expect((await cognitoClient(pool, client))?.CallbackURLs).toEqual(["https://app.example.com/cb", url]);
  });
});

describe("STS could not reach the issuer (400 IDPCommunicationError, documented as transient)", () => {
  it("the exchange is retried like Throttling and the run succeeds", async () => {
    const bucket = await s3Federated("s3-idp-transient");
    let failed = false;
    const { app, sent } = recordedApp((request) => {
      if (failed || !new URL(request.url).host.startsWith("sts.")) return undefined;
      failed = true;
      return stsError(
        400,
        "IDPCommunicationError",
        "The request could not be fulfilled because the identity provider (IDP) that was asked to verify the incoming identity token could not be reached.",
      );
    });
    const scope = freshPr();
    const origin = `https://${scope}.preview.example.com`;
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: s3Plan("s3-idp-transient", bucket, origin),
    });
    expect(res.status).toBe(200);
    expect(sent.filter(isSts).map((s) => s.status)).toEqual([400, 200]);
    expect((await s3Bucket(bucket))?.rules?.[0]?.AllowedOrigin).toEqual([origin]);
  });
});
