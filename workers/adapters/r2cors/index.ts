/**
 * Cloudflare R2: one origin in one CORS rule of a bucket (DESIGN §1). PUT replaces the whole
 * policy with no precondition, so writes are serialized by the parent lease. Plan block:
 * `{ "type": "r2", "accountId": "<32 hex>", "apiToken": { "secret": "R2_API_TOKEN" } }`; line params:
 * `{ "bucket": "assets", "rule": "previews", "origin": "https://pr-1.preview.example.com" }`.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import type { Inspection, OpSpec, Params, ProviderAdapter } from "../../engine/op-spec";
import {
  type CorsLineParams,
  corsLineParamsSchema,
  hasOrigin,
  type RuleAccess,
  ruleMethods,
  withOrigin,
  withoutOrigin,
} from "../cors/cors-origin";
import { type R2CorsRule, readR2Cors, writeR2Cors } from "./bucket-cors-api";
import { type R2Config, r2ConfigSchema, r2CorsIdentity } from "./config";

const parse = (params: Params) => corsLineParamsSchema.parse(params);
const seenSchema = z.object({ bucket: z.string(), rules: z.array(z.any()) });

function access(params: CorsLineParams): RuleAccess<R2CorsRule> {
  return {
    id: (rule) => rule.id,
    origins: (rule) => rule.allowed.origins,
    withOrigins: (rule, origins) => ({ ...rule, allowed: { ...rule.allowed, origins } }),
    create: (id, origin) => ({
      ...(id ? { id } : {}),
      allowed: { origins: [origin], methods: ruleMethods(params) },
      maxAgeSeconds: 3600,
    }),
  };
}

function seenRules(seen: Inspection, bucket: string): R2CorsRule[] {
  const state = seenSchema.safeParse(seen.state);
  if (!state.success || state.data.bucket !== bucket) {
    throw new SponsonError(
      "INTERNAL",
      `r2.corsOrigin: a write needs this op's inspection of bucket ${bucket}`,
    );
  }
  return state.data.rules as R2CorsRule[];
}

const corsOrigin: OpSpec<R2Config> = {
  name: "r2.corsOrigin",
  providerType: "r2",
  params: corsLineParamsSchema,
  key: (params) => parse(params).origin,
  lockOn: (params, provider) => r2CorsIdentity(provider, parse(params).bucket),

  async inspect(ctx, params) {
    const p = parse(params);
    const rules = await readR2Cors(ctx, p.bucket);
    return { present: hasOrigin(rules, p.rule, p.origin, access(p)), state: { bucket: p.bucket, rules } };
  },

  async create(ctx, params, seen) {
    const p = parse(params);
    const rules = seenRules(seen, p.bucket);
    if (hasOrigin(rules, p.rule, p.origin, access(p))) return;
    await writeR2Cors(ctx, p.bucket, withOrigin(rules, p.rule, p.origin, access(p)));
  },

  async remove(ctx, params, seen) {
    const p = parse(params);
    const rules = seenRules(seen, p.bucket);
    if (!hasOrigin(rules, p.rule, p.origin, access(p))) return;
    await writeR2Cors(ctx, p.bucket, withoutOrigin(rules, p.rule, p.origin, access(p)));
  },
};

const typedAdapter: ProviderAdapter<R2Config> = { type: "r2", config: r2ConfigSchema, ops: [corsOrigin] };

export const r2CorsAdapter: ProviderAdapter = typedAdapter as unknown as ProviderAdapter;
export { r2CorsIdentity } from "./config";
