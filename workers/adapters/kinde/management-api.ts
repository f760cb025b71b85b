/**
 * Kinde's item-level URL endpoints (Kinde Management API reference): GET the list, POST `{urls}` to add,
 * DELETE `?urls=` to remove. The only provider that adds and removes single items server-side, so these
 * ops need no parent lock. Client-credentials token from https://<business>.kinde.com/oauth2/token.
 */
import { z } from "zod";
import {
  formClientCredentials,
  type HttpContext,
  type ProviderHttpSpec,
  providerJson,
  secondsResetHeader,
  withAccessToken,
} from "../http";
import type { KindeConfig } from "./config";

export interface KindeContext extends HttpContext {
  config: KindeConfig;
}

export type KindeList =
  | { path: "auth_redirect_urls"; field: "redirect_urls" }
  | { path: "auth_logout_urls"; field: "logout_urls" };

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export const kindeHttp: ProviderHttpSpec = {
  provider: "kinde",
  // A 429 carries only RateLimit-Reset, in seconds.
  retryAfterMs: secondsResetHeader("ratelimit-reset"),
  describeError(body) {
    if (typeof body !== "object" || body === null) return { message: str(body) || undefined };
    const b = body as {
      errors?: Array<{ code?: unknown; message?: unknown }>;
      error?: unknown;
      error_description?: unknown;
    };
    if (Array.isArray(b.errors) && b.errors[0])
      return { message: str(b.errors[0].message), code: str(b.errors[0].code) };
    return { message: str(b.error_description), code: str(b.error) };
  },
};

/**
 * A write's 200. Kinde documents `{code:"OK", message:"Success"}`, but the status is what says the
 * write landed: a 200 with an empty body, no `code` or another success code is accepted. Only a body
 * that carries Kinde's error list is refused.
 */
const okSchema = z.union([
  z.literal(""),
  z
    .object({})
    .loose()
    .refine((b) => !("errors" in b), "a 200 that carries errors"),
]);

function tokenSource(ctx: KindeContext) {
  const { domain, clientId, clientSecret } = ctx.config;
  const endpoint = `https://${domain}/oauth2/token`;
  return formClientCredentials(ctx, kindeHttp, {
    endpoint,
    clientId,
    clientSecret,
    extra: { audience: `https://${domain}/api` },
  });
}

/** Buys (or finds cached) the Management API token, so no exchange happens under a lease. */
export async function warmKindeToken(ctx: KindeContext): Promise<void> {
  await withAccessToken(ctx, tokenSource(ctx), async () => {});
}

const listUrl = (ctx: KindeContext, app: string, list: KindeList) =>
  `https://${ctx.config.domain}/api/v1/applications/${encodeURIComponent(app)}/${list.path}`;

export function readUrls(ctx: KindeContext, app: string, list: KindeList): Promise<string[]> {
  const schema = z
    .object({ [list.field]: z.array(z.string()).nullish() })
    .transform((b) => (b[list.field] as string[] | null) ?? []);
  return withAccessToken(ctx, tokenSource(ctx), (token) =>
    providerJson(
      ctx,
      kindeHttp,
      { method: "GET", url: listUrl(ctx, app, list), headers: { authorization: `Bearer ${token}` } },
      schema,
    ),
  );
}

export async function addUrl(ctx: KindeContext, app: string, list: KindeList, url: string): Promise<void> {
  await withAccessToken(ctx, tokenSource(ctx), (token) =>
    providerJson(
      ctx,
      kindeHttp,
      {
        method: "POST",
        url: listUrl(ctx, app, list),
        headers: { authorization: `Bearer ${token}` },
        json: { urls: [url] },
      },
      okSchema,
    ),
  );
}

export async function deleteUrl(ctx: KindeContext, app: string, list: KindeList, url: string): Promise<void> {
  await withAccessToken(ctx, tokenSource(ctx), (token) =>
    providerJson(
      ctx,
      kindeHttp,
      {
        method: "DELETE",
        url: `${listUrl(ctx, app, list)}?urls=${encodeURIComponent(url)}`,
        headers: { authorization: `Bearer ${token}` },
      },
      okSchema,
    ),
  );
}
