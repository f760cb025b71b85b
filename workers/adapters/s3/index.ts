/**
 * AWS S3: one origin in one CORS rule of a bucket. PUT ?cors replaces the whole
 * document with no precondition, so writes are serialized by the parent lease `s3:<bucket>:cors`.
 * Plan block: `{ "type": "s3", "region": "us-east-1", "accessKeyId": "AKIA…", "secretAccessKey":
 * { "secret": "AWS_SECRET_ACCESS_KEY" } }`; line params: `{ "bucket": "assets", "rule": "previews",
 * "origin": "https://pr-1.preview.example.com" }` (`rule` is the rule's ID, or `#<n>`).
 */

import { prepareAwsCredentials } from "../aws/credentials";
import { ruleMethods } from "../cors/cors-origin";
import { corsOriginOp, unconditionalRules } from "../cors/cors-origin-op";
import { defineAdapter, type ProviderAdapter, withCapacity } from "../op-spec";
import { readS3Cors, writeS3Cors } from "./bucket-cors-api";
import { S3_CAPACITY } from "./capacity";
import { type S3Config, s3ConfigSchema, s3CorsIdentity, s3LineParamsSchema } from "./config";
import type { S3CorsRule } from "./cors-xml";

const corsOrigin = corsOriginOp<S3Config, S3CorsRule, { rules: S3CorsRule[] }>({
  name: "s3.corsOrigin",
  providerType: "s3",
  params: s3LineParamsSchema,
  lockOn: (p) => s3CorsIdentity(p.bucket),
  access: (p) => ({
    id: (rule) => rule.ID,
    origins: (rule) => rule.AllowedOrigin,
    withOrigins: (rule, origins) => ({ ...rule, AllowedOrigin: origins }),
    create: (id, origin) => ({
      ...(id ? { ID: id } : {}),
      AllowedMethod: ruleMethods(p),
      AllowedOrigin: [origin],
      MaxAgeSeconds: 3600,
    }),
  }),
  ...unconditionalRules(readS3Cors, writeS3Cors),
});

const typedAdapter: ProviderAdapter<S3Config> = {
  type: "s3",
  config: s3ConfigSchema,
  prepare: (ctx) => prepareAwsCredentials(ctx, "s3"),
  // S3 caps the rules of the bucket, not the origins of one rule: a line that creates a rule counts.
  ops: [withCapacity(corsOrigin, S3_CAPACITY)],
};

export const s3Adapter: ProviderAdapter = defineAdapter(typedAdapter);
export { s3CorsIdentity } from "./config";
