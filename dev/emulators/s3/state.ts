/**
 * What the S3 emulator keeps. Every bucket is its own emulator object, named by its virtual host
 * ({bucket}.s3.{region}.amazonaws.com; path-style requests reach the same object); IAM credentials
 * are seeded on each bucket host that honours them.
 * Storage keys:
 *   bucket            → S3Bucket (the bucket this host serves; absent: NoSuchBucket)
 *   key:<access key>  → S3AccessKey
 *   role:<role arn>   → S3RoleAccess (what a role's temporary credentials may do on this bucket)
 *   demo:provisioned  → true (./demo.ts)
 */

import type { CorsRule } from "./cors-xml";

export interface S3Bucket {
  region: string;
  /** Absent or empty: no CORS configuration (GET answers 404 NoSuchCORSConfiguration). */
  rules?: CorsRule[];
}

export interface S3AccessKey {
  secretAccessKey: string;
  /** `read`: s3:GetBucketCORS only (PUT/DELETE → 403 AccessDenied). */
  access: "full" | "read";
}

/** A role's permissions on this bucket, for temporary credentials STS issued for it (../aws-sts/). */
export interface S3RoleAccess {
  access: "full" | "read";
}

export const s3Keys = {
  bucket: "bucket",
  accessKey: (id: string) => `key:${id}`,
  role: (arn: string) => `role:${arn}`,
  demoProvisioned: "demo:provisioned",
} as const;
