/**
 * GET and PUT /api/v1/apps/{appId} (Okta Apps API reference). PUT is a full replace, so the app is sent
 * back whole, exactly as read, with only the one list changed. Auth: `SSWS <api token>`, or for a
 * privateKeyJwt connection `Bearer` with an access token of the org authorization server
 * (./service-token.ts).
 */
import { z } from "zod";
import { epochSecondsResetHeader, type HttpContext, type ProviderHttpSpec, providerJson } from "../http";
import type { OktaConfig } from "./config";
import { withOktaAuthorization } from "./service-token";

export interface OktaContext extends HttpContext {
  config: OktaConfig;
}

export const OKTA_LIST_FIELDS = ["redirect_uris", "post_logout_redirect_uris"] as const;
export type OktaListField = (typeof OKTA_LIST_FIELDS)[number];

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export const oktaHttp: ProviderHttpSpec = {
  provider: "okta",
  // X-Rate-Limit-Reset is a UNIX time in seconds.
  retryAfterMs: epochSecondsResetHeader("x-rate-limit-reset"),
  describeError(body) {
    if (typeof body !== "object" || body === null) return { message: str(body) || undefined };
    // The token endpoint answers OAuth errors: {error, error_description}.
    const oauth = body as { error?: unknown; error_description?: unknown };
    if (typeof oauth.error === "string") return { message: str(oauth.error_description), code: oauth.error };
    const b = body as {
      errorSummary?: unknown;
      errorCode?: unknown;
      errorCauses?: Array<{ errorSummary?: unknown }>;
    };
    const causes = (b.errorCauses ?? []).map((c) => str(c.errorSummary)).filter((c) => c !== undefined);
    const summary = str(b.errorSummary);
    return {
      message: causes.length > 0 && summary ? `${summary} (${causes.join("; ")})` : summary,
      code: str(b.errorCode),
    };
  },
};

/** An OIDC app: the lists are checked, everything else is kept as it came. */
export const oktaAppSchema = z
  .object({
    id: z.string(),
    settings: z
      .object({
        oauthClient: z
          .object({
            redirect_uris: z.array(z.string()).nullish(),
            post_logout_redirect_uris: z.array(z.string()).nullish(),
          })
          .loose(),
      })
      .loose(),
  })
  .loose();
export type OktaApp = z.infer<typeof oktaAppSchema>;

const appUrl = (ctx: OktaContext, app: string) =>
  `https://${ctx.config.domain}/api/v1/apps/${encodeURIComponent(app)}`;
export function readApp(ctx: OktaContext, app: string): Promise<OktaApp> {
  return withOktaAuthorization(ctx, (authorization) =>
    providerJson(
      ctx,
      oktaHttp,
      { method: "GET", url: appUrl(ctx, app), headers: { authorization } },
      oktaAppSchema,
    ),
  );
}

export function listOf(app: OktaApp, field: OktaListField): string[] {
  return app.settings.oauthClient[field] ?? [];
}

/** The app with `field` replaced: every other property stays as read. */
export function withList(app: OktaApp, field: OktaListField, list: string[]): OktaApp {
  return {
    ...app,
    settings: { ...app.settings, oauthClient: { ...app.settings.oauthClient, [field]: list } },
  };
}

/** PUT the app as read with its lists edited: every other property goes back unchanged. */
export async function writeApp(ctx: OktaContext, app: OktaApp): Promise<void> {
  await withOktaAuthorization(ctx, (authorization) =>
    providerJson(
      ctx,
      oktaHttp,
      { method: "PUT", url: appUrl(ctx, app.id), headers: { authorization }, json: app },
      oktaAppSchema,
    ),
  );
}
