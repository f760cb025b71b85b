/**
 * `@aws-sdk/client-s3` against the S3 emulator. The SDK builds, checksums and SigV4-signs each
 * request for the real host; a request handler then sends it to the emulator with only the origin
 * changed, so the signature is checked over the SDK's own canonical request.
 */
import {
  GetBucketCorsCommand,
  PutBucketCorsCommand,
  type PutBucketCorsCommandInput,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { s3Keys } from "../../dev/emulators/s3";
import { dump, emulatorFetch, seed, sent, unique } from "./emulators";

const REGION = "eu-west-1";
const KEY = {
  id: `AKIA${crypto.randomUUID().replaceAll("-", "").slice(0, 16).toUpperCase()}`,
  secret: "test-only-sdk-s3-secret",
};

interface SmithyRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
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

/** Sends the signed request through the origin-rewriting fetch; nothing else is touched. */
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

function client(options: { forcePathStyle?: boolean } = {}) {
  return new S3Client({
    region: REGION,
    credentials: { accessKeyId: KEY.id, secretAccessKey: KEY.secret },
    requestHandler: emulatorHandler as unknown as S3Client["config"]["requestHandler"],
    maxAttempts: 1,
    ...options,
  });
}

async function bucket() {
  const name = unique("sdk");
  await seed(`${name}.s3.${REGION}.amazonaws.com`, {
    [s3Keys.accessKey(KEY.id)]: { secretAccessKey: KEY.secret, access: "full" },
    [s3Keys.bucket]: { region: REGION },
  });
  return name;
}

const RULES: PutBucketCorsCommandInput["CORSConfiguration"] = {
  CORSRules: [
    {
      ID: "app",
      AllowedMethods: ["GET", "HEAD"],
      AllowedOrigins: ["https://a.example.com"],
      MaxAgeSeconds: 600,
    },
    {
      ID: "previews",
      AllowedMethods: ["GET"],
      AllowedOrigins: ["https://pr-1.example.com"],
      AllowedHeaders: ["*"],
    },
  ],
};

describe("@aws-sdk/client-s3", () => {
  it("PutBucketCors with the SDK's default checksum, then GetBucketCors returns the rules", async () => {
    const name = await bucket();
    const s3 = client();
    await s3.send(new PutBucketCorsCommand({ Bucket: name, CORSConfiguration: RULES }));
    const put = sent.findLast((r) => r.method === "PUT");
    expect(new URL(put?.url ?? "").host).toBe(`${name}.s3.${REGION}.amazonaws.com`);
    const got = await s3.send(new GetBucketCorsCommand({ Bucket: name }));
    expect(got.CORSRules).toEqual(RULES?.CORSRules);
  });

  it("path-style requests reach the same bucket", async () => {
    const name = await bucket();
    const s3 = client({ forcePathStyle: true });
    await s3.send(new PutBucketCorsCommand({ Bucket: name, CORSConfiguration: RULES }));
    expect(new URL(sent.findLast((r) => r.method === "PUT")?.url ?? "").pathname).toBe(`/${name}/`);
    const got = await s3.send(new GetBucketCorsCommand({ Bucket: name }));
    expect(got.CORSRules?.map((r) => r.ID)).toEqual(["app", "previews"]);
  });

  it("CRC64NVME and CRC32C checksums are accepted instead of Content-MD5", async () => {
    const name = await bucket();
    const s3 = client();
    for (const algorithm of ["CRC64NVME", "CRC32C"] as const) {
      await s3.send(
        new PutBucketCorsCommand({ Bucket: name, CORSConfiguration: RULES, ChecksumAlgorithm: algorithm }),
      );
      const put = sent.findLast((r) => r.method === "PUT");
      expect(put?.headers.get(`x-amz-checksum-${algorithm.toLowerCase()}`)).toBeTruthy();
      expect(put?.headers.has("content-md5")).toBe(false);
    }
    const stored = (await dump(`${name}.s3.${REGION}.amazonaws.com`, s3Keys.bucket))[s3Keys.bucket];
    expect(stored).toMatchObject({ rules: [{ ID: "app" }, { ID: "previews" }] });
  });

  it("a wrong x-amz-checksum-crc32c is refused with 400 BadDigest and nothing is stored", async () => {
    const name = await bucket();
    const s3 = client();
    // Tampered after the SDK computed it, before it signs: the signature stays valid.
    const tamper =
      (next: (args: { request: SmithyRequest }) => Promise<unknown>) =>
      (args: { request: SmithyRequest }) => {
        args.request.headers["x-amz-checksum-crc32c"] = "AAAAAA==";
        return next(args);
      };
    s3.middlewareStack.addRelativeTo(
      tamper as unknown as Parameters<typeof s3.middlewareStack.addRelativeTo>[0],
      {
        relation: "before",
        toMiddleware: "httpSigningMiddleware",
        name: "tamperChecksum",
      },
    );
    const refused = await s3
      .send(new PutBucketCorsCommand({ Bucket: name, CORSConfiguration: RULES, ChecksumAlgorithm: "CRC32C" }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(S3ServiceException);
    expect(refused).toMatchObject({ name: "BadDigest", $metadata: { httpStatusCode: 400 } });
    const stored = (await dump(`${name}.s3.${REGION}.amazonaws.com`, s3Keys.bucket))[s3Keys.bucket];
    expect(stored).toEqual({ region: REGION });
  });

  it("a bucket that does not exist is 404 NoSuchBucket, not a credentials error", async () => {
    const missing = await client()
      .send(new GetBucketCorsCommand({ Bucket: unique("typo") }))
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ name: "NoSuchBucket", $metadata: { httpStatusCode: 404 } });
  });

  it("errors: no configuration is 404 NoSuchCORSConfiguration; a wrong secret 403 SignatureDoesNotMatch", async () => {
    const name = await bucket();
    const empty = await client()
      .send(new GetBucketCorsCommand({ Bucket: name }))
      .catch((e: unknown) => e);
    expect(empty).toMatchObject({ name: "NoSuchCORSConfiguration", $metadata: { httpStatusCode: 404 } });
    const wrong = new S3Client({
      region: REGION,
      credentials: { accessKeyId: KEY.id, secretAccessKey: "not-the-secret" },
      requestHandler: emulatorHandler as unknown as S3Client["config"]["requestHandler"],
      maxAttempts: 1,
    });
    const refused = await wrong.send(new GetBucketCorsCommand({ Bucket: name })).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: "SignatureDoesNotMatch", $metadata: { httpStatusCode: 403 } });
  });
});
