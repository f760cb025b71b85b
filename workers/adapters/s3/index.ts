/**
 * AWS S3: one origin in one CORS rule of a bucket (DESIGN §1). PUT ?cors replaces the whole
 * document with no precondition, so writes are serialized by the parent lease `s3:<bucket>:cors`.
 * Plan block: `{ "type": "s3", "region": "us-east-1", "accessKeyId": "AKIA…", "secretAccessKey":
 * { "secret": "AWS_SECRET_ACCESS_KEY" } }`; line params: `{ "bucket": "assets", "rule": "previews",
 * "origin": "https://pr-1.preview.example.com" }` (`rule` is the rule's ID, or `#<n>`).
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import type { Inspection, OpSpec, Params, ProviderAdapter } from "../../engine/op-spec";
import {
  type CorsLineParams,
  hasOrigin,
  type RuleAccess,
  ruleMethods,
  withOrigin,
  withoutOrigin,
} from "../cors/cors-origin";
import { readS3Cors, writeS3Cors } from "./bucket-cors-api";
import { type S3Config, s3ConfigSchema, s3CorsIdentity, s3LineParamsSchema } from "./config";
import type { S3CorsRule } from "./cors-xml";

const parse = (params: Params) => s3LineParamsSchema.parse(params) as CorsLineParams;
const seenSchema = z.object({ bucket: z.string(), rules: z.array(z.any()) });

function access(params: CorsLineParams): RuleAccess<S3CorsRule> {
  return {
    id: (rule) => rule.ID,
    origins: (rule) => rule.AllowedOrigin,
    withOrigins: (rule, origins) => ({ ...rule, AllowedOrigin: origins }),
    create: (id, origin) => ({
      ...(id ? { ID: id } : {}),
      AllowedMethod: ruleMethods(params),
      AllowedOrigin: [origin],
      MaxAgeSeconds: 3600,
    }),
  };
}

function seenRules(seen: Inspection, bucket: string): S3CorsRule[] {
  const state = seenSchema.safeParse(seen.state);
  if (!state.success || state.data.bucket !== bucket) {
    throw new SponsonError(
      "INTERNAL",
      `s3.corsOrigin: a write needs this op's inspection of bucket ${bucket}`,
    );
  }
  return state.data.rules as S3CorsRule[];
}

const corsOrigin: OpSpec<S3Config> = {
  name: "s3.corsOrigin",
  providerType: "s3",
  params: s3LineParamsSchema,
  key: (params) => parse(params).origin,
  lockOn: (params) => s3CorsIdentity(parse(params).bucket),

  async inspect(ctx, params) {
    const p = parse(params);
    const rules = await readS3Cors(ctx, p.bucket);
    return { present: hasOrigin(rules, p.rule, p.origin, access(p)), state: { bucket: p.bucket, rules } };
  },

  async create(ctx, params, seen) {
    const p = parse(params);
    const rules = seenRules(seen, p.bucket);
    if (hasOrigin(rules, p.rule, p.origin, access(p))) return;
    await writeS3Cors(ctx, p.bucket, withOrigin(rules, p.rule, p.origin, access(p)));
  },

  async remove(ctx, params, seen) {
    const p = parse(params);
    const rules = seenRules(seen, p.bucket);
    if (!hasOrigin(rules, p.rule, p.origin, access(p))) return;
    await writeS3Cors(ctx, p.bucket, withoutOrigin(rules, p.rule, p.origin, access(p)));
  },
};

const typedAdapter: ProviderAdapter<S3Config> = { type: "s3", config: s3ConfigSchema, ops: [corsOrigin] };

export const s3Adapter: ProviderAdapter = typedAdapter as unknown as ProviderAdapter;
export { s3CorsIdentity } from "./config";
