/**
 * The two Management API v2 calls the list ops need, plus the client-credentials token
 * (Auth0 Management API v2 reference). Everything the provider answers is validated before use.
 */
import { z } from "zod";
import {
  epochSecondsResetHeader,
  type HttpContext,
  type ProviderHttpSpec,
  providerJson,
  withAccessToken,
} from "../http";
import type { Auth0Config } from "./config";

export const AUTH0_LIST_FIELDS = [
  "callbacks",
  "allowed_logout_urls",
  "web_origins",
  "allowed_origins",
] as const;
export type Auth0ListField = (typeof AUTH0_LIST_FIELDS)[number];

export interface Auth0Context extends HttpContext {
  config: Auth0Config;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export const auth0Http: ProviderHttpSpec = {
  provider: "auth0",
  // x-ratelimit-reset is a UNIX time in seconds.
  retryAfterMs: epochSecondsResetHeader("x-ratelimit-reset"),
  describeError(body) {
    if (typeof body !== "object" || body === null) return { message: str(body) || undefined };
    const b = body as Record<string, unknown>;
    // Management API: {statusCode, error, message, errorCode?}; /oauth/token: {error, error_description}.
    if ("error_description" in b) return { message: str(b.error_description), code: str(b.error) };
    return { message: str(b.message) ?? str(b.error), code: str(b.errorCode) };
  },
};

const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().positive(),
});

function tokenSource(ctx: Auth0Context) {
  const { domain, clientId, clientSecret, audience } = ctx.config;
  const endpoint = `https://${domain}/oauth/token`;
  return {
    endpoint,
    clientId,
    clientSecret,
    async fetchToken() {
      const body = await providerJson(
        ctx,
        auth0Http,
        {
          method: "POST",
          url: endpoint,
          json: {
            grant_type: "client_credentials",
            client_id: clientId,
            client_secret: clientSecret,
            audience: audience ?? `https://${domain}/api/v2/`,
          },
        },
        tokenResponseSchema,
      );
      return { accessToken: body.access_token, expiresInSeconds: body.expires_in };
    },
  };
}

/**
 * Fetches (or finds cached) the Management API token before the run takes any lease, so no token
 * exchange happens while a lease is held (docs/design.md, "Lease protocol").
 */
export async function warmAuth0Token(ctx: Auth0Context): Promise<void> {
  await withAccessToken(ctx, tokenSource(ctx), async () => {});
}

function clientUrl(ctx: Auth0Context, client: string): string {
  return `https://${ctx.config.domain}/api/v2/clients/${encodeURIComponent(client)}`;
}

/** Auth0 may leave an empty list out of the answer; absent means []. */
const listSchema = (field: Auth0ListField) =>
  z.object({ [field]: z.array(z.string()).nullish() }).transform((b) => (b[field] as string[] | null) ?? []);

/** GET /api/v2/clients/{id}?fields=<field>&include_fields=true → the list as stored. */
export function readClientList(ctx: Auth0Context, client: string, field: Auth0ListField): Promise<string[]> {
  return withAccessToken(ctx, tokenSource(ctx), (token) =>
    providerJson(
      ctx,
      auth0Http,
      {
        method: "GET",
        url: `${clientUrl(ctx, client)}?fields=${field}&include_fields=true`,
        headers: { authorization: `Bearer ${token}` },
      },
      listSchema(field),
    ),
  );
}

/** PATCH /api/v2/clients/{id} with only `field`: Auth0 replaces that array and nothing else. */
export function writeClientList(
  ctx: Auth0Context,
  client: string,
  field: Auth0ListField,
  list: readonly string[],
): Promise<string[]> {
  return withAccessToken(ctx, tokenSource(ctx), (token) =>
    providerJson(
      ctx,
      auth0Http,
      {
        method: "PATCH",
        url: clientUrl(ctx, client),
        headers: { authorization: `Bearer ${token}` },
        json: { [field]: list },
      },
      listSchema(field),
    ),
  );
}
