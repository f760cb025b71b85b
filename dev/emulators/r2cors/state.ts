/**
 * What the R2 CORS emulator keeps (one object for api.cloudflare.com). Storage keys:
 *   token:<api token>                           → R2Token
 *   bucket:<account>/<bucket>                    → R2Bucket in the default jurisdiction
 *   bucket:<account>/<jurisdiction>:<bucket>     → R2Bucket in another (`eu`, `fedramp`, …)
 *   demo:token, demo:bucket:<name>               → true (./demo.ts)
 */

export interface R2Token {
  accounts: string[];
  readOnly?: boolean;
}
export interface R2Bucket {
  rules?: unknown[];
}

/** The values Cloudflare takes in `cf-r2-jurisdiction`; a bucket lives in exactly one. */
export const R2_JURISDICTIONS = ["default", "eu", "us", "fedramp", "fedramp-high"] as const;

export const r2Keys = {
  token: (t: string) => `token:${t}`,
  bucket: (account: string, bucket: string, jurisdiction = "default") =>
    jurisdiction === "default"
      ? `bucket:${account}/${bucket}`
      : `bucket:${account}/${jurisdiction}:${bucket}`,
} as const;
