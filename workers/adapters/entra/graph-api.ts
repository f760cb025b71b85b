/**
 * Microsoft Graph applications (Graph v1.0 reference, "Get application" / "Update application"):
 * GET /v1.0/applications/{object id}, and PATCH with the changed platform objects (`web`, `spa`,
 * `publicClient`), each sent whole as read — Graph replaces a collection whole and a complex
 * property may be reset where a sub-property is left out. `web.redirectUriSettings` mirrors
 * `web.redirectUris` and is left out so the two never disagree. PATCH answers 204. Token: client
 * credentials at login.microsoftonline.com/{tenant}/oauth2/v2.0/token, scope Graph's `.default`.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import {
  type HttpContext,
  type ProviderHttpSpec,
  providerJson,
  providerRequest,
  secondsResetHeader,
  withAccessToken,
} from "../http";
import { ENTRA_FEDERATION_AUDIENCE, ENTRA_KINDS, type EntraConfig, type EntraKind } from "./config";

export interface EntraContext extends HttpContext {
  config: EntraConfig;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export const entraHttp: ProviderHttpSpec = {
  provider: "entra",
  retryAfterMs: secondsResetHeader("retry-after"),
  describeError(body) {
    if (typeof body !== "object" || body === null) return { message: str(body) || undefined };
    const b = body as { error?: unknown; error_description?: unknown };
    // The token endpoint answers OAuth errors; Graph its `{error:{code, message}}`.
    if (typeof b.error === "string") return { message: str(b.error_description), code: b.error };
    const e = (b.error ?? {}) as { code?: unknown; message?: unknown };
    return { message: str(e.message), code: str(e.code) };
  },
};

const platformSchema = z.object({ redirectUris: z.array(z.string()).nullish() }).loose();
export const entraAppSchema = z
  .object({
    id: z.string(),
    web: platformSchema.nullish(),
    spa: platformSchema.nullish(),
    publicClient: platformSchema.nullish(),
  })
  .loose();
export type EntraApp = z.infer<typeof entraAppSchema>;

const tokenSchema = z.object({ access_token: z.string().min(1), expires_in: z.number().positive() });

export const tokenEndpoint = (ctx: EntraContext) =>
  `https://login.microsoftonline.com/${encodeURIComponent(ctx.config.federated?.tenantId ?? ctx.config.tenant)}/oauth2/v2.0/token`;

/**
 * How the app signs in: its client secret, or (federated) a `client_assertion` the service mints
 * for this connection's subject (Microsoft identity platform, "Workload identity federation").
 */
async function clientAuthentication(ctx: EntraContext): Promise<Record<string, string>> {
  const { federated, clientSecret, clientId } = ctx.config;
  if (!federated) return { client_id: clientId ?? "", client_secret: clientSecret ?? "" };
  if (!ctx.federation) throw new SponsonError("INTERNAL", "entra: a federated connection without an issuer");
  return {
    client_id: federated.clientId,
    client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
    client_assertion: await ctx.federation.assertion(ENTRA_FEDERATION_AUDIENCE),
  };
}

function withGraphToken<T>(ctx: EntraContext, call: (token: string) => Promise<T>): Promise<T> {
  const { federated } = ctx.config;
  return withAccessToken(
    ctx,
    {
      endpoint: tokenEndpoint(ctx),
      clientId: federated?.clientId ?? ctx.config.clientId ?? "",
      // A federated credential has no secret: its subject and issuer name it in the cache key.
      clientSecret: federated
        ? `federated:${ctx.federation?.issuer}:${ctx.federation?.subject}`
        : (ctx.config.clientSecret ?? ""),
      async fetchToken() {
        const body = await providerJson(
          ctx,
          entraHttp,
          {
            method: "POST",
            read: true,
            url: tokenEndpoint(ctx),
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({
              grant_type: "client_credentials",
              ...(await clientAuthentication(ctx)),
              scope: "https://graph.microsoft.com/.default",
            }).toString(),
          },
          tokenSchema,
        );
        return { accessToken: body.access_token, expiresInSeconds: body.expires_in };
      },
    },
    call,
  );
}

/** Buys (or reuses) the Graph token: the adapter's `prepare`, before any lease. */
export const prepareGraphToken = (ctx: EntraContext) => withGraphToken(ctx, async () => {});

const appUrl = (application: string) =>
  `https://graph.microsoft.com/v1.0/applications/${encodeURIComponent(application)}`;

export function readApplication(ctx: EntraContext, application: string): Promise<EntraApp> {
  return withGraphToken(ctx, (token) =>
    providerJson(
      ctx,
      entraHttp,
      { method: "GET", url: appUrl(application), headers: { authorization: `Bearer ${token}` } },
      entraAppSchema,
    ),
  );
}

export function redirectUrisOf(app: EntraApp, kind: EntraKind): string[] {
  return app[kind]?.redirectUris ?? [];
}

export function withRedirectUris(app: EntraApp, kind: EntraKind, uris: string[]): EntraApp {
  return { ...app, [kind]: { ...(app[kind] ?? {}), redirectUris: uris } };
}

/** PATCH the platforms whose lists differ from what was read; nothing else is sent. */
export async function writeApplication(
  ctx: EntraContext,
  application: string,
  before: EntraApp,
  after: EntraApp,
): Promise<void> {
  const patch: Record<string, unknown> = {};
  for (const kind of ENTRA_KINDS) {
    if (JSON.stringify(redirectUrisOf(before, kind)) === JSON.stringify(redirectUrisOf(after, kind)))
      continue;
    const { redirectUriSettings: _mirror, ...platform } = (after[kind] ?? {}) as Record<string, unknown>;
    patch[kind] = { ...platform, redirectUris: redirectUrisOf(after, kind) };
  }
  if (Object.keys(patch).length === 0) return;
  await withGraphToken(ctx, async (token) => {
    const response = await providerRequest(ctx, entraHttp, {
      method: "PATCH",
      url: appUrl(application),
      headers: { authorization: `Bearer ${token}` },
      json: patch,
    });
    await response.body?.cancel();
  });
}
