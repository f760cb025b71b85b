/** The AWS S3 provider block and line params (Amazon S3 API reference, PutBucketCors). */
import { z } from "zod";
import { awsCredentialFields, ONE_CREDENTIAL_FORM, oneCredentialForm } from "../aws/credentials";
import { corsLineParamsSchema } from "../cors/cors-origin";

/**
 * The resolved block: `secretAccessKey` is the value its `{ "secret": … }` reference resolved to;
 * or, keyless, `federated: { roleArn }` (docs/design.md, "Federated connections").
 */
export const s3ConfigSchema = z
  .strictObject({
    type: z.literal("s3"),
    /** The buckets' region: requests go to https://{bucket}.s3.{region}.amazonaws.com (and STS's there). */
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, "an AWS region such as us-east-1"),
    ...awsCredentialFields,
  })
  .refine(oneCredentialForm, { message: ONE_CREDENTIAL_FORM });
export type S3Config = z.infer<typeof s3ConfigSchema>;

/**
 * Virtual-hosted-style bucket names (3–63 lowercase letters, digits, `-`; no dots, whose
 * certificates do not match *.s3.{region}.amazonaws.com).
 */
export const s3LineParamsSchema = corsLineParamsSchema.extend({
  bucket: z.string().regex(/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/, "an S3 bucket name (no dots)"),
});

/** `s3:<bucket>:cors` (bucket names are globally unique across AWS). */
export function s3CorsIdentity(bucket: string): string {
  return `s3:${bucket}:cors`;
}
