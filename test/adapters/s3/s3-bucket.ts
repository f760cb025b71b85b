/** A fresh emulated S3 bucket, an access key on it, and an adapter context. */

import type { OpSpec } from "../../../workers/adapters/op-spec";
import { s3Adapter } from "../../../workers/adapters/s3";
import type { S3CorsRule } from "../../../workers/adapters/s3/cors-xml";
import { freshS3Bucket, S3_REGION, s3Bucket, seedS3 } from "../../helpers/emulators-s3";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const corsOrigin = s3Adapter.ops[0] as OpSpec;

/** Two rules another team owns: the ops must never touch them. */
export const EXISTING_RULES: S3CorsRule[] = [
  {
    ID: "app",
    AllowedHeader: ["*"],
    AllowedMethod: ["GET", "HEAD"],
    AllowedOrigin: ["https://app.example.com"],
    ExposeHeader: ["ETag", "x-amz-request-id"],
    MaxAgeSeconds: 600,
  },
  { ID: "previews", AllowedMethod: ["GET", "PUT"], AllowedOrigin: ["http://localhost:5173"] },
];

export async function s3BucketWithCors(rules: S3CorsRule[] | undefined, failure?: SetupFailure) {
  const { bucket, accessKeyId, secret } = freshS3Bucket();
  if (failure !== "unauthenticated") {
    await seedS3(bucket, {
      keys: { [accessKeyId]: { secretAccessKey: secret, access: failure === "forbidden" ? "read" : "full" } },
    });
  }
  if (failure !== "missing")
    await seedS3(bucket, { bucket: { region: S3_REGION, ...(rules ? { rules } : {}) } });
  const config = { type: "s3", region: S3_REGION, accessKeyId, secretAccessKey: secret };
  const h = harness(s3Adapter, config, [secret]);
  return { ...h, bucket, accessKeyId, secret, stored: () => s3Bucket(bucket) };
}
