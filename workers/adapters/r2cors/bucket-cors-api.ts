/**
 * Cloudflare R2 bucket CORS over the v4 REST API (Cloudflare API reference, R2 bucket CORS): GET/PUT/DELETE
 * /accounts/{account}/r2/buckets/{bucket}/cors in the `{success, errors, messages, result}`
 * envelope. Error 10059 ("The CORS configuration does not exist") means no rules.
 */
import { z } from "zod";
import { CLOUDFLARE_API, cloudflareHttp, v4Envelope as envelope } from "../cloudflare/v4";
import { type HttpContext, providerError, providerJson, providerRequest } from "../http";
import type { R2Config } from "./config";

export interface R2Context extends HttpContext {
  config: R2Config;
}

export const NO_CORS_CONFIGURATION = 10059;

export const r2Http = cloudflareHttp("r2");

export const r2CorsRuleSchema = z
  .object({
    id: z.string().optional(),
    allowed: z.object({ origins: z.array(z.string()), methods: z.array(z.string()) }).loose(),
  })
  .loose();
export type R2CorsRule = z.infer<typeof r2CorsRuleSchema>;

const corsEnvelope = envelope(z.object({ rules: z.array(r2CorsRuleSchema) }));
const errorEnvelope = envelope(z.unknown());

function headers(ctx: R2Context): Record<string, string> {
  const h: Record<string, string> = { authorization: `Bearer ${ctx.config.apiToken}` };
  if (ctx.config.jurisdiction) h["cf-r2-jurisdiction"] = ctx.config.jurisdiction;
  return h;
}

const corsUrl = (ctx: R2Context, bucket: string) =>
  `${CLOUDFLARE_API}/accounts/${ctx.config.accountId}/r2/buckets/${encodeURIComponent(bucket)}/cors`;

export async function readR2Cors(ctx: R2Context, bucket: string): Promise<R2CorsRule[]> {
  const response = await providerRequest(ctx, r2Http, {
    method: "GET",
    url: corsUrl(ctx, bucket),
    headers: headers(ctx),
    accept: [404],
  });
  const body: unknown = await response.json().catch(() => null);
  if (response.status === 200) {
    const parsed = corsEnvelope.safeParse(body);
    if (parsed.success) return parsed.data.result.rules;
  }
  const failed = errorEnvelope.safeParse(body);
  if (failed.success && failed.data.errors[0]?.code === NO_CORS_CONFIGURATION) return [];
  const described = r2Http.describeError(body);
  throw providerError(ctx.secrets, {
    provider: "r2",
    status: response.status,
    message: described.message ?? "unexpected response from GET cors",
    providerCode: described.code,
    attempts: 1,
  });
}

/** PUT the whole policy; an empty one is deleted instead (R2 keeps no empty policy). */
export async function writeR2Cors(ctx: R2Context, bucket: string, rules: R2CorsRule[]): Promise<void> {
  const req =
    rules.length === 0
      ? { method: "DELETE" as const, url: corsUrl(ctx, bucket), headers: headers(ctx) }
      : { method: "PUT" as const, url: corsUrl(ctx, bucket), headers: headers(ctx), json: { rules } };
  await providerJson(ctx, r2Http, req, envelope(z.unknown()));
}
