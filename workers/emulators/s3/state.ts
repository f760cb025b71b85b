/**
 * What the S3 emulator keeps. Every bucket is its own host ({bucket}.s3.{region}.amazonaws.com),
 * hence its own emulator object; IAM credentials are seeded on each bucket host that honours them.
 * Storage keys:
 *   bucket            → S3Bucket (the bucket this host serves; absent: NoSuchBucket)
 *   key:<access key>  → S3AccessKey
 *   demo:provisioned  → true (a `sponson-demo-` bucket has been given its demo state)
 */

import type { S3CorsRule } from "../../adapters/s3/cors-xml";
import type { EmulatorState } from "../emulator";

export interface S3Bucket {
  region: string;
  /** Absent or empty: no CORS configuration (GET answers 404 NoSuchCORSConfiguration). */
  rules?: S3CorsRule[];
}

export interface S3AccessKey {
  secretAccessKey: string;
  /** `read`: s3:GetBucketCORS only (PUT/DELETE → 403 AccessDenied). */
  access: "full" | "read";
}

export const s3Keys = {
  bucket: "bucket",
  accessKey: (id: string) => `key:${id}`,
  demoProvisioned: "demo:provisioned",
} as const;

/** `npm start`: buckets named `sponson-demo-…` exist on first use, with the demo key on them. */
export const DEMO_BUCKET_PREFIX = "sponson-demo-";
/** Local demo credentials, not secrets: scripts/start.mjs passes the secret as S3_SECRET_ACCESS_KEY. */
export const DEMO_ACCESS_KEY = { id: "AKIASPONSONDEMO00001", secret: "local-demo-s3-secret" } as const;

export function provisionDemoBucket(bucket: string, region: string, state: EmulatorState): void {
  if (!bucket.startsWith(DEMO_BUCKET_PREFIX) || state.get<boolean>(s3Keys.demoProvisioned)) return;
  state.put<S3AccessKey>(s3Keys.accessKey(DEMO_ACCESS_KEY.id), {
    secretAccessKey: DEMO_ACCESS_KEY.secret,
    access: "full",
  });
  state.put<S3Bucket>(s3Keys.bucket, {
    region,
    rules: [
      { ID: "app", AllowedMethod: ["GET"], AllowedOrigin: ["https://app.example.com"], MaxAgeSeconds: 600 },
    ],
  });
  state.put(s3Keys.demoProvisioned, true);
}
