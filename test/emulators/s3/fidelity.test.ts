/**
 * The emulated S3 CORS subresource answers AWS's documented exchanges (Amazon S3 API reference,
 * PutBucketCors): XML bodies and error envelope, SigV4 checked against AWS's own signature examples, the
 * integrity header a PUT needs, the 100-rule and 64 KB limits, and last write wins.
 */
import { env } from "cloudflare:workers";
import { AwsClient } from "aws4fetch";
import { describe, expect, it } from "vitest";
import { expectedSignature, parseSigV4 } from "../../../dev/emulators/s3/sigv4";
import { providerFetch } from "../../../dev/emulators/transport";
import { parseCorsXml, serializeCorsXml } from "../../../workers/adapters/s3/cors-xml";
import { freshS3Bucket, S3_REGION, s3Bucket, s3Host, seedS3 } from "../../helpers/emulators-s3";

const send = providerFetch(env);

/** AWS's example document (PutBucketCors, "Example 1: Add CORS configuration"). */
const DOCUMENTED_CORS = `<CORSConfiguration>
 <CORSRule>
   <AllowedOrigin>http://www.example.com</AllowedOrigin>

   <AllowedMethod>PUT</AllowedMethod>
   <AllowedMethod>POST</AllowedMethod>
   <AllowedMethod>DELETE</AllowedMethod>

   <AllowedHeader>*</AllowedHeader>
 </CORSRule>
 <CORSRule>
   <AllowedOrigin>*</AllowedOrigin>
   <AllowedMethod>GET</AllowedMethod>
   <AllowedHeader>*</AllowedHeader>
  <MaxAgeSeconds>3000</MaxAgeSeconds>
 </CORSRule>
</CORSConfiguration>`;

async function bucket(rules?: ReturnType<typeof parseCorsXml>) {
  const b = freshS3Bucket();
  await seedS3(b.bucket, {
    keys: { [b.accessKeyId]: { secretAccessKey: b.secret, access: "full" } },
    bucket: { region: S3_REGION, ...(rules ? { rules } : {}) },
  });
  const aws = new AwsClient({
    accessKeyId: b.accessKeyId,
    secretAccessKey: b.secret,
    service: "s3",
    region: S3_REGION,
  });
  const url = `https://${s3Host(b.bucket)}/?cors`;
  /** A request signed like an SDK would, then sent to the emulator. */
  const signed = async (init: RequestInit & { headers?: Record<string, string> } = {}) =>
    send(await aws.sign(url, init));
  return { ...b, aws, url, signed };
}

async function md5(body: string): Promise<string> {
  const digest = await crypto.subtle.digest("MD5", new TextEncoder().encode(body));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

async function sha256Hex(body: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
  return [...new Uint8Array(digest)].map((x) => x.toString(16).padStart(2, "0")).join("");
}

async function put(
  b: Awaited<ReturnType<typeof bucket>>,
  body: string,
  headers: Record<string, string> = {},
) {
  return b.signed({
    method: "PUT",
    body,
    headers: { "content-md5": await md5(body), "x-amz-content-sha256": await sha256Hex(body), ...headers },
  });
}

const errorOf = async (res: Response) => {
  const text = await res.text();
  return {
    status: res.status,
    code: text.match(/<Code>([^<]*)<\/Code>/)?.[1],
    message: text.match(/<Message>([^<]*)<\/Message>/)?.[1],
  };
};

describe("SigV4 as S3 checks it: AWS's documented examples (AKIAIOSFODNN7EXAMPLE)", () => {
  const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  const EMPTY_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  const credential = "AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request";

  interface Example {
    name: string;
    method: string;
    url: string;
    headers: Record<string, string>;
    signed: string;
    signature: string;
  }

  it.each<Example>([
    {
      name: "GET Object with Range",
      method: "GET",
      url: "https://examplebucket.s3.amazonaws.com/test.txt",
      headers: { range: "bytes=0-9", "x-amz-content-sha256": EMPTY_SHA, "x-amz-date": "20130524T000000Z" },
      signed: "host;range;x-amz-content-sha256;x-amz-date",
      signature: "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
    },
    {
      name: "PUT Object (a $ in the key, Date and x-amz-storage-class signed)",
      method: "PUT",
      url: "https://examplebucket.s3.amazonaws.com/test$file.text",
      headers: {
        date: "Fri, 24 May 2013 00:00:00 GMT",
        "x-amz-date": "20130524T000000Z",
        "x-amz-storage-class": "REDUCED_REDUNDANCY",
        "x-amz-content-sha256": "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072",
      },
      signed: "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
      signature: "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
    },
    {
      name: "GET Bucket Lifecycle (a valueless subresource, like ?cors)",
      method: "GET",
      url: "https://examplebucket.s3.amazonaws.com/?lifecycle",
      headers: { "x-amz-content-sha256": EMPTY_SHA, "x-amz-date": "20130524T000000Z" },
      signed: "host;x-amz-content-sha256;x-amz-date",
      signature: "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543",
    },
    {
      name: "GET Bucket (List Objects) with query parameters",
      method: "GET",
      url: "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J",
      headers: { "x-amz-content-sha256": EMPTY_SHA, "x-amz-date": "20130524T000000Z" },
      signed: "host;x-amz-content-sha256;x-amz-date",
      signature: "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
    },
  ])("$name", async ({ method, url, headers, signed, signature }) => {
    const auth = parseSigV4(
      `AWS4-HMAC-SHA256 Credential=${credential},SignedHeaders=${signed},Signature=${signature}`,
    );
    expect(auth).not.toBeNull();
    if (!auth) return;
    expect(await expectedSignature({ method, url, headers: new Headers(headers) }, auth, SECRET)).toBe(
      signature,
    );
    expect(
      await expectedSignature({ method, url, headers: new Headers(headers) }, auth, `${SECRET}x`),
    ).not.toBe(signature);
  });
});

describe("S3 CORS emulator fidelity", () => {
  it("PUT AWS's example document → 200 with an empty body; GET returns its rules as XML", async () => {
    const b = await bucket();
    const res = await put(b, DOCUMENTED_CORS);
    expect([res.status, await res.text()]).toEqual([200, ""]);
    expect(res.headers.get("x-amz-request-id")).toMatch(/^[0-9A-F]{16}$/);
    const got = await b.signed();
    expect(got.headers.get("content-type")).toBe("application/xml");
    const xml = await got.text();
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<CORSConfiguration xmlns="http:\/\/s3.amazonaws.com\/doc\/2006-03-01\/">/,
    );
    expect(parseCorsXml(xml)).toEqual([
      {
        AllowedHeader: ["*"],
        AllowedMethod: ["PUT", "POST", "DELETE"],
        AllowedOrigin: ["http://www.example.com"],
      },
      { AllowedHeader: ["*"], AllowedMethod: ["GET"], AllowedOrigin: ["*"], MaxAgeSeconds: 3000 },
    ]);
  });

  it("GET with no configuration → 404 NoSuchCORSConfiguration in the XML error envelope", async () => {
    const b = await bucket();
    const res = await b.signed();
    const text = await res.text();
    expect(res.status).toBe(404);
    expect(text).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<Error><Code>NoSuchCORSConfiguration<\/Code><Message>The CORS configuration does not exist<\/Message><BucketName>[a-z0-9-]+<\/BucketName><RequestId>[0-9A-F]{16}<\/RequestId><HostId>[^<]+<\/HostId><\/Error>$/,
    );
  });

  it("PUT without Content-MD5 or a checksum → 400 InvalidRequest; a wrong MD5 → 400 BadDigest", async () => {
    const b = await bucket();
    const body = DOCUMENTED_CORS;
    const bare = await b.signed({
      method: "PUT",
      body,
      headers: { "x-amz-content-sha256": await sha256Hex(body) },
    });
    expect(await errorOf(bare)).toEqual({
      status: 400,
      code: "InvalidRequest",
      message: "Missing required header for this request: Content-MD5",
    });
    expect(await errorOf(await put(b, body, { "content-md5": await md5("something else") }))).toMatchObject({
      status: 400,
      code: "BadDigest",
    });
    expect(await s3Bucket(b.bucket)).toEqual({ region: S3_REGION });
  });

  it("a flexible checksum (x-amz-checksum-crc32, as current SDKs send) is accepted instead of Content-MD5", async () => {
    const b = await bucket();
    const body = serializeCorsXml([{ AllowedMethod: ["GET"], AllowedOrigin: ["https://a.example.com"] }]);
    // CRC32 of the body, big-endian, base64 (computed independently with a bitwise loop).
    let c = 0xffffffff;
    for (const byte of new TextEncoder().encode(body)) {
      c ^= byte;
      for (let k = 0; k < 8; k += 1) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
    }
    const crc = new Uint8Array(4);
    new DataView(crc.buffer).setUint32(0, (c ^ 0xffffffff) >>> 0);
    const res = await b.signed({
      method: "PUT",
      body,
      headers: {
        "x-amz-content-sha256": await sha256Hex(body),
        "x-amz-sdk-checksum-algorithm": "CRC32",
        "x-amz-checksum-crc32": btoa(String.fromCharCode(...crc)),
      },
    });
    expect(res.status).toBe(200);
    const wrong = await b.signed({
      method: "PUT",
      body,
      headers: { "x-amz-content-sha256": await sha256Hex(body), "x-amz-checksum-crc32": "AAAAAA==" },
    });
    expect(await errorOf(wrong)).toEqual({
      status: 400,
      code: "BadDigest",
      message: "The CRC32 you specified did not match the calculated checksum.",
    });
  });

  it("more than 100 rules → 400 InvalidRequest naming the limit; a document over 64 KB → 400 EntityTooLarge", async () => {
    const b = await bucket();
    const rule = { AllowedMethod: ["GET"], AllowedOrigin: ["https://a.example.com"] };
    expect(await errorOf(await put(b, serializeCorsXml(Array(101).fill(rule))))).toEqual({
      status: 400,
      code: "InvalidRequest",
      message: "The number of CORS rules should not exceed allowed limit of 100 rules.",
    });
    expect((await put(b, serializeCorsXml(Array(100).fill(rule)))).status).toBe(200);
    const big = serializeCorsXml([{ ...rule, AllowedHeader: Array(3_000).fill("x-custom-header") }]);
    expect(big.length).toBeGreaterThan(64 * 1024);
    expect(await errorOf(await put(b, big))).toMatchObject({ status: 400, code: "EntityTooLarge" });
    expect((await s3Bucket(b.bucket))?.rules).toHaveLength(100);
  });

  it("authentication: no Authorization → 403 AccessDenied; no x-amz-content-sha256 → 400; wrong secret → 403 SignatureDoesNotMatch; other region → 400", async () => {
    const b = await bucket();
    expect(await errorOf(await send(b.url))).toEqual({
      status: 403,
      code: "AccessDenied",
      message: "Access Denied",
    });
    const signed = await b.aws.sign(b.url);
    const headers = new Headers(signed.headers);
    headers.delete("x-amz-content-sha256");
    expect(await errorOf(await send(b.url, { headers }))).toEqual({
      status: 400,
      code: "InvalidRequest",
      message: "Missing required header for this request: x-amz-content-sha256",
    });
    const wrong = new AwsClient({
      accessKeyId: b.accessKeyId,
      secretAccessKey: "nope",
      service: "s3",
      region: S3_REGION,
    });
    expect(await errorOf(await send(await wrong.sign(b.url)))).toMatchObject({
      status: 403,
      code: "SignatureDoesNotMatch",
    });
    const elsewhere = new AwsClient({
      accessKeyId: b.accessKeyId,
      secretAccessKey: b.secret,
      service: "s3",
      region: "us-east-1",
    });
    expect(await errorOf(await send(await elsewhere.sign(b.url)))).toEqual({
      status: 400,
      code: "AuthorizationHeaderMalformed",
      message: `The authorization header is malformed; the region 'us-east-1' is wrong; expecting '${S3_REGION}'`,
    });
  });

  it("a body that is not what x-amz-content-sha256 says → 400 XAmzContentSHA256Mismatch", async () => {
    const b = await bucket();
    const body = DOCUMENTED_CORS;
    const res = await b.signed({
      method: "PUT",
      body,
      headers: { "content-md5": await md5(body), "x-amz-content-sha256": await sha256Hex(`${body} `) },
    });
    expect(await errorOf(res)).toMatchObject({ status: 400, code: "XAmzContentSHA256Mismatch" });
  });

  it("DELETE ?cors → 204; GET then 404 NoSuchCORSConfiguration", async () => {
    const b = await bucket([{ AllowedMethod: ["GET"], AllowedOrigin: ["https://a.example.com"] }]);
    expect((await b.signed()).status).toBe(200);
    const del = await b.signed({ method: "DELETE" });
    expect([del.status, await del.text()]).toEqual([204, ""]);
    expect(await errorOf(await b.signed())).toMatchObject({ status: 404, code: "NoSuchCORSConfiguration" });
  });

  it("last write wins: two read-modify-writes that both read first lose one origin", async () => {
    const b = await bucket([{ ID: "p", AllowedMethod: ["GET"], AllowedOrigin: ["https://app.example.com"] }]);
    const [first, second] = await Promise.all([b.signed(), b.signed()]).then((rs) =>
      Promise.all(rs.map(async (r) => parseCorsXml(await r.text()) ?? [])),
    );
    const add = (rules: typeof first, origin: string) =>
      (rules ?? []).map((r) => ({ ...r, AllowedOrigin: [...r.AllowedOrigin, origin] }));
    expect((await put(b, serializeCorsXml(add(first, "https://pr-1.example.com")))).status).toBe(200);
    expect((await put(b, serializeCorsXml(add(second, "https://pr-2.example.com")))).status).toBe(200);
    expect((await s3Bucket(b.bucket))?.rules?.[0]?.AllowedOrigin).toEqual([
      "https://app.example.com",
      "https://pr-2.example.com",
    ]);
  });
});
