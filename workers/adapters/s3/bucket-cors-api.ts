/**
 * S3 bucket CORS (Amazon S3 API reference, PutBucketCors): GET, PUT and DELETE
 * https://{bucket}.s3.{region}.amazonaws.com/?cors, signed with SigV4 (aws4fetch; service `s3`,
 * `x-amz-content-sha256` the body's real hash). PUT carries Content-MD5, without which S3 refuses it. 404
 * NoSuchCORSConfiguration means no rules; an empty configuration is never PUT (S3 requires at least one
 * rule): it is DELETEd instead.
 */
import { AwsV4Signer } from "aws4fetch";
import { type AwsCredentials, withAwsCredentials } from "../aws/credentials";
import {
  type HttpContext,
  type ProviderHttpSpec,
  type ProviderRequest,
  providerError,
  providerRequest,
} from "../http";
import type { S3Config } from "./config";
import { parseCorsXml, parseS3Error, type S3CorsRule, serializeCorsXml } from "./cors-xml";

export interface S3Context extends HttpContext {
  config: S3Config;
}

export const NO_CORS_CONFIGURATION = "NoSuchCORSConfiguration";

export const s3Http: ProviderHttpSpec = {
  provider: "s3",
  // S3 throttles with 503 SlowDown and no reset header: the helper's backoff applies.
  retryAfterMs: () => undefined,
  describeError(body) {
    if (typeof body !== "string") return {};
    return parseS3Error(body);
  },
};

const corsUrl = (ctx: S3Context, bucket: string) =>
  `https://${bucket}.s3.${ctx.config.region}.amazonaws.com/?cors`;

function base64(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)));
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** `20260102T030405Z` from the run's clock (signatures are only valid within 15 min of S3's). */
function amzDate(nowMs: number): string {
  return new Date(nowMs).toISOString().replace(/[:-]|\.\d{3}/g, "");
}

/**
 * Signs and sends: signed once, resent as is on the helper's retries (well inside 15 min); signed
 * anew with fresh credentials when S3 refuses the temporary ones (../aws/credentials.ts).
 */
function send(
  ctx: S3Context,
  method: "GET" | "PUT" | "DELETE",
  url: string,
  body = "",
  accept: readonly number[] = [],
): Promise<Response> {
  const write = method !== "GET";
  return withAwsCredentials(
    ctx,
    "s3",
    async (credentials) =>
      providerRequest(ctx, s3Http, { ...(await signed(ctx, method, url, body, credentials)), accept }),
    { write },
  );
}

/** The request with SigV4 headers. */
async function signed(
  ctx: S3Context,
  method: "GET" | "PUT" | "DELETE",
  url: string,
  body: string,
  credentials: AwsCredentials,
): Promise<ProviderRequest> {
  const bytes = new TextEncoder().encode(body);
  const headers: Record<string, string> = {
    accept: "application/xml",
    "x-amz-content-sha256": hex(await crypto.subtle.digest("SHA-256", bytes)),
  };
  if (method === "PUT") {
    headers["content-type"] = "application/xml";
    // workerd implements MD5 in crypto.subtle (a non-standard extension, fine for an integrity header).
    headers["content-md5"] = base64(await crypto.subtle.digest("MD5", bytes));
  }
  const signer = new AwsV4Signer({
    method,
    url,
    headers,
    body: method === "PUT" ? body : null,
    ...credentials,
    service: "s3",
    region: ctx.config.region,
    datetime: amzDate(ctx.clock.now()),
  });
  const out = await signer.sign();
  const req: ProviderRequest = { method, url, headers: Object.fromEntries(out.headers) };
  if (method === "PUT") req.body = body;
  return req;
}

/** The bucket's rules; [] when it has no CORS configuration. */
export async function readS3Cors(ctx: S3Context, bucket: string): Promise<S3CorsRule[]> {
  const response = await send(ctx, "GET", corsUrl(ctx, bucket), "", [404]);
  const text = await response.text();
  if (response.status === 200) {
    const rules = parseCorsXml(text);
    if (rules) return rules;
  }
  const error = parseS3Error(text);
  if (response.status === 404 && error.code === NO_CORS_CONFIGURATION) return [];
  throw providerError(ctx.secrets, {
    provider: "s3",
    status: response.status,
    message: error.message ?? "unexpected response from GET ?cors",
    providerCode: error.code,
    attempts: 1,
  });
}

/** PUT the whole configuration (S3 replaces it); no rules left: DELETE ?cors. */
export async function writeS3Cors(
  ctx: S3Context,
  bucket: string,
  rules: readonly S3CorsRule[],
): Promise<void> {
  const url = corsUrl(ctx, bucket);
  const response =
    rules.length === 0
      ? await send(ctx, "DELETE", url)
      : await send(ctx, "PUT", url, serializeCorsXml(rules));
  await response.body?.cancel();
}
