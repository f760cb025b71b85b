/**
 * What the R2 CORS emulator keeps (one object for api.cloudflare.com, shared with Turnstile's).
 * Storage keys:
 *   token:<api token>                           → R2Token (../cloudflare/tokens.ts)
 *   bucket:<account>/<bucket>                    → R2Bucket in the default jurisdiction
 *   bucket:<account>/<jurisdiction>:<bucket>     → R2Bucket in another (`eu`, `fedramp`, …)
 *   demo:token, demo:bucket:<name>               → true (./demo.ts)
 */

import { type CloudflareToken, tokenKey } from "../cloudflare/tokens";

export type R2Token = CloudflareToken;
export interface R2Bucket {
  rules?: unknown[];
}

/** The values Cloudflare takes in `cf-r2-jurisdiction`; a bucket lives in exactly one. */
export const R2_JURISDICTIONS = ["default", "eu", "us", "fedramp", "fedramp-high"] as const;

export const r2Keys = {
  token: tokenKey,
  bucket: (account: string, bucket: string, jurisdiction = "default") =>
    jurisdiction === "default"
      ? `bucket:${account}/${bucket}`
      : `bucket:${account}/${jurisdiction}:${bucket}`,
} as const;
