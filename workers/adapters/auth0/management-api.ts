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
import { clientAssertionFields, namingConnectionOnRefusal, privateKeyJwtCacheName } from "../private-key-jwt";
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

/**
 * How the M2M application proves itself: its client secret, or (privateKeyJwt) a client assertion
 * whose `aud` is the tenant URL with its trailing slash (Auth0, "Authenticate with Private Key
 * JWT"; with a custom domain as `domain`, that domain's URL).
 */
function clientAuthentication(ctx: Auth0Context): Promise<Record<string, string>> | Record<string, string> {
  const { privateKeyJwt, clientId, clientSecret, domain } = ctx.config;
  if (!privateKeyJwt) return { client_id: clientId ?? "", client_secret: clientSecret ?? "" };
  return clientAssertionFields("auth0", ctx.federation, privateKeyJwt, `https://${domain}/`);
}

async function tokenSource(ctx: Auth0Context) {
  const { domain, privateKeyJwt, audience } = ctx.config;
  const endpoint = `https://${domain}/oauth/token`;
  const wanted = audience ?? `https://${domain}/api/v2/`;
  return {
    endpoint,
    clientId: privateKeyJwt?.clientId ?? ctx.config.clientId ?? "",
    // No secret to key the cache on: the client id and the kid that signs name the credential.
    clientSecret: privateKeyJwt
      ? await privateKeyJwtCacheName("auth0", ctx.federation, privateKeyJwt)
      : (ctx.config.clientSecret ?? ""),
    // A token is for one API: connections differing only in audience must not share one. The
    // default audience adds nothing, so the keys of tokens already cached stay as they were.
    ...(audience ? { requested: { audience } } : {}),
    async fetchToken() {
      const body = await namingConnectionOnRefusal(privateKeyJwt ? ctx.federation : undefined, () =>
        providerJson(
          ctx,
          auth0Http,
          {
            method: "POST",
            read: true,
            url: endpoint,
            // Made per attempt: a client assertion is one-use, and a retry may follow a lost answer.
            eachAttempt: async () => ({
              json: {
                grant_type: "client_credentials",
                ...(await clientAuthentication(ctx)),
                audience: wanted,
              },
            }),
          },
          tokenResponseSchema,
        ),
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
  await withAccessToken(ctx, await tokenSource(ctx), async () => {});
}

function clientUrl(ctx: Auth0Context, client: string): string {
  return `https://${ctx.config.domain}/api/v2/clients/${encodeURIComponent(client)}`;
}

/** The application's lists, as the ops see them. */
export type Auth0ClientLists = Record<Auth0ListField, string[]>;

/** Auth0 may leave an empty list out of the answer; absent (or null) means []. */
const listsSchema = z
  .object(Object.fromEntries(AUTH0_LIST_FIELDS.map((f) => [f, z.array(z.string()).nullish()])))
  .transform((b) => Object.fromEntries(AUTH0_LIST_FIELDS.map((f) => [f, b[f] ?? []])) as Auth0ClientLists);

export const auth0ClientListsSchema = z.object(
  Object.fromEntries(AUTH0_LIST_FIELDS.map((f) => [f, z.array(z.string())])),
) as unknown as z.ZodType<Auth0ClientLists>;

/** GET /api/v2/clients/{id}?fields=<every list>&include_fields=true → the lists as stored. */
export async function readClientLists(ctx: Auth0Context, client: string): Promise<Auth0ClientLists> {
  return withAccessToken(ctx, await tokenSource(ctx), (token) =>
    providerJson(
      ctx,
      auth0Http,
      {
        method: "GET",
        url: `${clientUrl(ctx, client)}?fields=${AUTH0_LIST_FIELDS.join(",")}&include_fields=true`,
        headers: { authorization: `Bearer ${token}` },
      },
      listsSchema,
    ),
  );
}

/**
 * PATCH /api/v2/clients/{id} with only the lists that differ from what was read: Auth0 replaces
 * each array sent and nothing else, so one request carries every list a run changed.
 */
export async function writeClientLists(
  ctx: Auth0Context,
  client: string,
  before: Auth0ClientLists,
  after: Auth0ClientLists,
): Promise<void> {
  const changed = AUTH0_LIST_FIELDS.filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]));
  if (changed.length === 0) return;
  await withAccessToken(ctx, await tokenSource(ctx), (token) =>
    providerJson(
      ctx,
      auth0Http,
      {
        method: "PATCH",
        url: clientUrl(ctx, client),
        headers: { authorization: `Bearer ${token}` },
        json: Object.fromEntries(changed.map((f) => [f, after[f]])),
      },
      listsSchema,
    ),
  );
}
