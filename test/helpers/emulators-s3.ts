/** Buckets of the emulated S3 API: one object per bucket host ({bucket}.s3.{region}.amazonaws.com). */
import { type S3AccessKey, type S3Bucket, type S3RoleAccess, s3Keys } from "../../dev/emulators/s3";
import { emulatorStub } from "./emulators";

export const S3_REGION = "eu-west-1";

export function s3Host(bucket: string, region = S3_REGION): string {
  return `${bucket}.s3.${region}.amazonaws.com`;
}

/** A bucket name and an access key pair no other test uses. */
export function freshS3Bucket(prefix = "assets"): { bucket: string; accessKeyId: string; secret: string } {
  const id = crypto.randomUUID().replaceAll("-", "");
  return {
    bucket: `${prefix}-${id.slice(0, 10)}`,
    accessKeyId: `AKIA${id.slice(0, 16).toUpperCase()}`,
    secret: `test-only-s3-secret-${id.slice(16)}`,
  };
}

export async function seedS3(
  bucket: string,
  seed: { keys?: Record<string, S3AccessKey>; bucket?: S3Bucket; roles?: Record<string, S3RoleAccess> },
  region = S3_REGION,
): Promise<void> {
  const entries: Record<string, unknown> = {};
  for (const [id, key] of Object.entries(seed.keys ?? {})) entries[s3Keys.accessKey(id)] = key;
  if (seed.bucket) entries[s3Keys.bucket] = seed.bucket;
  for (const [arn, access] of Object.entries(seed.roles ?? {})) entries[s3Keys.role(arn)] = access;
  await emulatorStub(s3Host(bucket, region)).seed(entries);
}

export async function s3Bucket(bucket: string, region = S3_REGION): Promise<S3Bucket | undefined> {
  return (await emulatorStub(s3Host(bucket, region)).dump(s3Keys.bucket))[s3Keys.bucket] as
    | S3Bucket
    | undefined;
}
