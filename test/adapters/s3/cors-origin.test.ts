import { describe, expect, it } from "vitest";
import { s3Adapter } from "../../../workers/adapters/s3";
import type { S3CorsRule } from "../../../workers/adapters/s3/cors-xml";
import { configureHost } from "../../helpers/emulators";
import { s3Host, seedS3 } from "../../helpers/emulators-s3";
import { describeProviderContract, failure, harness } from "../../helpers/provider-contract";
import { corsOrigin, EXISTING_RULES, s3BucketWithCors } from "./s3-bucket";

const ORIGIN = "https://pr-1.preview.example.com";
const rule = (rules: S3CorsRule[] | undefined, id: string) => rules?.find((r) => r.ID === id);

describeProviderContract({
  provider: "s3",
  op: corsOrigin,
  item: ORIGIN,
  unrelated: ["http://localhost:5173"],
  apiHost: (f) => s3Host(String(f.params.bucket)),
  forbiddenOn: "write",
  errors: {
    // S3 answers unknown or wrong credentials with 403, never 401.
    unauthenticated: {
      status: 403,
      message: "The AWS Access Key Id you provided does not exist in our records.",
      providerCode: "InvalidAccessKeyId",
    },
    forbidden: { status: 403, message: "Access Denied", providerCode: "AccessDenied" },
    missing: { status: 404, message: "The specified bucket does not exist", providerCode: "NoSuchBucket" },
  },
  // No reset header on S3 throttling: the helper's own backoff applies.
  rateLimitWaitMs: () => undefined,
  async setup(failure) {
    const b = await s3BucketWithCors(EXISTING_RULES, failure);
    return {
      ...b,
      params: { bucket: b.bucket, rule: "previews", origin: ORIGIN },
      secrets: [b.secret],
      entries: async () => rule((await b.stored())?.rules, "previews")?.AllowedOrigin ?? [],
      snapshot: b.stored,
      setEntries: async (entries) => {
        const stored = await b.stored();
        const rules = (stored?.rules ?? []).map((r) =>
          r.ID === "previews" ? { ...r, AllowedOrigin: entries } : r,
        );
        await seedS3(b.bucket, { bucket: { region: stored?.region ?? "eu-west-1", rules } });
      },
    };
  },
});

describe("s3.corsOrigin", () => {
  it("no configuration (404 NoSuchCORSConfiguration) reads as empty; the named rule is created with that ID", async () => {
    const b = await s3BucketWithCors(undefined);
    const params = { bucket: b.bucket, rule: "previews", origin: ORIGIN };
    const seen = await corsOrigin.inspect(b.ctx, params);
    expect(seen.present).toBe(false);
    expect(b.responses[0]?.status).toBe(404);
    await corsOrigin.create(b.ctx, params, seen);
    expect(b.calls).toEqual(["GET /", "PUT /"]);
    expect((await b.stored())?.rules).toEqual([
      { ID: "previews", AllowedMethod: ["GET", "HEAD"], AllowedOrigin: [ORIGIN], MaxAgeSeconds: 3600 },
    ]);
  });

  it("removing the last origin of the only rule DELETEs ?cors", async () => {
    const b = await s3BucketWithCors([{ ID: "previews", AllowedMethod: ["GET"], AllowedOrigin: [ORIGIN] }]);
    const params = { bucket: b.bucket, rule: "previews", origin: ORIGIN };
    await corsOrigin.remove(b.ctx, params, await corsOrigin.inspect(b.ctx, params));
    expect(b.calls.at(-1)).toBe("DELETE /");
    expect(b.responses.at(-1)?.status).toBe(204);
    expect((await corsOrigin.inspect(b.ctx, params)).present).toBe(false);
  });

  it("the other rule is sent back exactly, every element kept", async () => {
    const b = await s3BucketWithCors(EXISTING_RULES);
    const params = { bucket: b.bucket, rule: "previews", origin: ORIGIN };
    await corsOrigin.create(b.ctx, params, await corsOrigin.inspect(b.ctx, params));
    expect((await b.stored())?.rules).toEqual([
      EXISTING_RULES[0],
      { ...EXISTING_RULES[1], AllowedOrigin: ["http://localhost:5173", ORIGIN] },
    ]);
  });

  it("the PUT is SigV4-signed over its integrity headers: Content-MD5 and the body's SHA-256", async () => {
    const b = await s3BucketWithCors(EXISTING_RULES);
    const sent: Request[] = [];
    const inner = b.ctx.fetch;
    const ctx = {
      ...b.ctx,
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        sent.push(new Request(input, init));
        return inner(input, init);
      }) as typeof fetch,
    };
    const params = { bucket: b.bucket, rule: "previews", origin: ORIGIN };
    await corsOrigin.create(ctx, params, await corsOrigin.inspect(ctx, params));
    const put = sent.find((r) => r.method === "PUT") as Request;
    expect(put.url).toBe(`https://${b.bucket}.s3.eu-west-1.amazonaws.com/?cors`);
    expect(put.headers.get("content-md5")).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(put.headers.get("x-amz-content-sha256")).toMatch(/^[0-9a-f]{64}$/);
    const auth = put.headers.get("authorization") ?? "";
    expect(auth).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${b.accessKeyId}/\\d{8}/eu-west-1/s3/aws4_request, `),
    );
    expect(auth).toContain("SignedHeaders=accept;content-md5;host;x-amz-content-sha256;x-amz-date,");
    expect(await put.text()).toContain(`<AllowedOrigin>${ORIGIN}</AllowedOrigin>`);
  });

  it("a wrong secret: 403 SignatureDoesNotMatch, the secret nowhere in the error", async () => {
    const b = await s3BucketWithCors(EXISTING_RULES);
    const wrong = "test-only-wrong-s3-secret";
    const h = harness(
      s3Adapter,
      { type: "s3", region: "eu-west-1", accessKeyId: b.accessKeyId, secretAccessKey: wrong },
      [wrong],
    );
    const err = await failure(
      corsOrigin.inspect(h.ctx, { bucket: b.bucket, rule: "previews", origin: ORIGIN }),
    );
    expect(err.detail).toMatchObject({ provider: "s3", status: 403, providerCode: "SignatureDoesNotMatch" });
    expect(JSON.stringify(err.toInfo())).not.toContain(wrong);
  });

  it("503 SlowDown is retried with backoff, then the write lands", async () => {
    const b = await s3BucketWithCors(EXISTING_RULES);
    const params = { bucket: b.bucket, rule: "previews", origin: ORIGIN };
    const seen = await corsOrigin.inspect(b.ctx, params);
    await configureHost(s3Host(b.bucket), { failures: [{ status: 503, count: 2, on: "write" }] });
    await corsOrigin.create(b.ctx, params, seen);
    expect(b.responses.filter((r) => r.status === 503)).toHaveLength(2);
    expect(await b.responses.find((r) => r.status === 503)?.text()).toContain("<Code>SlowDown</Code>");
    expect(b.clock.sleeps).toEqual([500, 1_000]);
    expect(rule((await b.stored())?.rules, "previews")?.AllowedOrigin).toContain(ORIGIN);
  });

  it("lockOn is s3:<bucket>:cors", () => {
    expect(
      corsOrigin.lockOn(
        { bucket: "assets", rule: "previews", origin: ORIGIN },
        { type: "s3", region: "us-east-1", accessKeyId: "AKIAEXAMPLE0000000" },
      ),
    ).toBe("s3:assets:cors");
  });
});
