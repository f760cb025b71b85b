/**
 * Cloudflare R2: one origin in one CORS rule of a bucket. PUT replaces the whole
 * policy with no precondition, so writes are serialized by the parent lease. Plan block:
 * `{ "type": "r2", "accountId": "<32 hex>", "apiToken": { "secret": "R2_API_TOKEN" } }`; line params:
 * `{ "bucket": "assets", "rule": "previews", "origin": "https://pr-1.preview.example.com" }`.
 */

import { corsLineParamsSchema, ruleMethods } from "../cors/cors-origin";
import { corsOriginOp, unconditionalRules } from "../cors/cors-origin-op";
import { defineAdapter, type ProviderAdapter } from "../op-spec";
import { type R2CorsRule, readR2Cors, writeR2Cors } from "./bucket-cors-api";
import { type R2Config, r2ConfigSchema, r2CorsIdentity } from "./config";

const corsOrigin = corsOriginOp<R2Config, R2CorsRule, { rules: R2CorsRule[] }>({
  name: "r2.corsOrigin",
  providerType: "r2",
  params: corsLineParamsSchema,
  lockOn: (p, provider) => r2CorsIdentity(provider, p.bucket),
  access: (p) => ({
    id: (rule) => rule.id,
    origins: (rule) => rule.allowed.origins,
    withOrigins: (rule, origins) => ({ ...rule, allowed: { ...rule.allowed, origins } }),
    create: (id, origin) => ({
      ...(id ? { id } : {}),
      allowed: { origins: [origin], methods: ruleMethods(p) },
      maxAgeSeconds: 3600,
    }),
  }),
  ...unconditionalRules(readR2Cors, writeR2Cors),
});

const typedAdapter: ProviderAdapter<R2Config> = { type: "r2", config: r2ConfigSchema, ops: [corsOrigin] };

export const r2CorsAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { r2CorsIdentity } from "./config";
