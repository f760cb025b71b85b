/**
 * The Management API calls the op needs (Supabase Management API reference): read and partially update a
 * project's auth config. Bearer personal access token; everything answered is validated before use.
 */
import { z } from "zod";
import { type HttpContext, type ProviderHttpSpec, providerJson, secondsResetHeader } from "../http";
import type { SupabaseConfig } from "./config";

export interface SupabaseContext extends HttpContext {
  config: SupabaseConfig;
}

export const supabaseHttp: ProviderHttpSpec = {
  provider: "supabase",
  // X-RateLimit-Reset counts seconds until the window resets.
  retryAfterMs: secondsResetHeader("x-ratelimit-reset"),
  describeError(body) {
    if (typeof body === "string") return { message: body || undefined };
    // Errors are `{ message }`; validation failures have been seen as 401 with an explanation,
    // so the message is always kept (it tells a bad token from a bad field).
    const message = (body as { message?: unknown } | null)?.message;
    return { message: typeof message === "string" ? message : undefined };
  },
};

const authConfigSchema = z.object({ uri_allow_list: z.string().nullish() });

function authConfigUrl(project: string): string {
  return `https://api.supabase.com/v1/projects/${encodeURIComponent(project)}/config/auth`;
}

/** GET /v1/projects/{ref}/config/auth → the allow-list string as stored (null when unset). */
export async function readAllowList(ctx: SupabaseContext, project: string): Promise<string | null> {
  const config = await providerJson(
    ctx,
    supabaseHttp,
    {
      method: "GET",
      url: authConfigUrl(project),
      headers: { authorization: `Bearer ${ctx.config.accessToken}` },
    },
    authConfigSchema,
  );
  return config.uri_allow_list ?? null;
}

/** PATCH with `uri_allow_list` alone: a partial update, every other auth setting is untouched. */
export async function writeAllowList(ctx: SupabaseContext, project: string, list: string): Promise<void> {
  await providerJson(
    ctx,
    supabaseHttp,
    {
      method: "PATCH",
      url: authConfigUrl(project),
      headers: { authorization: `Bearer ${ctx.config.accessToken}` },
      json: { uri_allow_list: list },
    },
    authConfigSchema,
  );
}
