/**
 * Keycloak's admin REST API for one client (Keycloak 26): find it by `clientId`
 * (`GET /admin/realms/{realm}/clients?clientId=`, an exact match), read it by its internal id, and
 * `PUT` it back whole. A PUT keeps omitted scalars but switches Authorization Services off (their
 * settings deleted) unless `authorizationServicesEnabled` is `true`, so the write is always the
 * representation exactly as read with only the lists changed. Token: client credentials at
 * `/realms/{tokenRealm}/protocol/openid-connect/token`.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import {
  formClientCredentials,
  type HttpContext,
  type ProviderHttpSpec,
  providerError,
  providerJson,
  providerRequest,
  withAccessToken,
} from "../http";
import type { KeycloakConfig } from "./config";

export interface KeycloakContext extends HttpContext {
  config: KeycloakConfig;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

export const keycloakHttp: ProviderHttpSpec = {
  provider: "keycloak",
  // Keycloak has no limiter and sends no reset header; a proxy's 429 backs off by default.
  retryAfterMs: () => undefined,
  describeError(body) {
    if (typeof body !== "object" || body === null) return { message: str(body) };
    // Two shapes: the OAuth one and ErrorRepresentation's (409 on a duplicate clientId).
    const b = body as { error?: unknown; error_description?: unknown; errorMessage?: unknown };
    if (str(b.errorMessage)) return { message: str(b.errorMessage) };
    return { message: str(b.error_description) ?? str(b.error), code: str(b.error) };
  },
};

export const POST_LOGOUT_ATTRIBUTE = "post.logout.redirect.uris";

/** The whole representation: the lists are checked, everything else is kept as it came. */
export const clientRepSchema = z
  .object({
    id: z.string().min(1),
    clientId: z.string(),
    redirectUris: z.array(z.string()).nullish(),
    webOrigins: z.array(z.string()).nullish(),
    attributes: z.record(z.string(), z.string()).nullish(),
  })
  .loose();
export type ClientRep = z.infer<typeof clientRepSchema>;

function tokenSource(ctx: KeycloakContext) {
  const { host, realm, tokenRealm, clientId, clientSecret } = ctx.config;
  const endpoint = `https://${host}/realms/${encodeURIComponent(tokenRealm ?? realm)}/protocol/openid-connect/token`;
  return formClientCredentials(ctx, keycloakHttp, { endpoint, clientId, clientSecret });
}

/** Buys (or finds cached) the admin token, so no exchange happens under a lease. */
export async function warmKeycloakToken(ctx: KeycloakContext): Promise<void> {
  await withAccessToken(ctx, tokenSource(ctx), async () => {});
}

const clientsUrl = (ctx: KeycloakContext) =>
  `https://${ctx.config.host}/admin/realms/${encodeURIComponent(ctx.config.realm)}/clients`;

/** The client named by `clientId`, read whole by its internal id. */
export function readClient(ctx: KeycloakContext, clientId: string): Promise<ClientRep> {
  return withAccessToken(ctx, tokenSource(ctx), async (token) => {
    const headers = { authorization: `Bearer ${token}` };
    const found = await providerJson(
      ctx,
      keycloakHttp,
      { method: "GET", url: `${clientsUrl(ctx)}?clientId=${encodeURIComponent(clientId)}`, headers },
      z.array(z.object({ id: z.string().min(1), clientId: z.string() }).loose()),
    );
    const id = found.find((c) => c.clientId === clientId)?.id;
    if (id === undefined) {
      throw providerError(ctx.secrets, {
        provider: "keycloak",
        status: 404,
        message: `no client with clientId ${clientId} in realm ${ctx.config.realm}`,
        attempts: 1,
      });
    }
    return providerJson(
      ctx,
      keycloakHttp,
      { method: "GET", url: `${clientsUrl(ctx)}/${encodeURIComponent(id)}`, headers },
      clientRepSchema,
    );
  });
}

/**
 * PUT the representation. Concurrent admin writes fail as a 500 (an optimistic-lock failure);
 * the transaction may or may not have committed, so a 5xx that is still the answer after the
 * retries is an unknown outcome, never "nothing was written" (docs/design.md, "Lease protocol").
 */
export async function writeClient(ctx: KeycloakContext, rep: ClientRep): Promise<void> {
  await withAccessToken(ctx, tokenSource(ctx), async (token) => {
    try {
      await providerRequest(ctx, keycloakHttp, {
        method: "PUT",
        url: `${clientsUrl(ctx)}/${encodeURIComponent(rep.id)}`,
        headers: { authorization: `Bearer ${token}` },
        json: rep,
      });
    } catch (err) {
      const status = err instanceof SponsonError && err.code === "PROVIDER_ERROR" ? err.providerStatus : null;
      if (status === null || status < 500) throw err;
      throw new SponsonError(
        "PROVIDER_ERROR",
        `${(err as SponsonError).message} (outcome unknown)`,
        {
          ...(err as SponsonError).detail,
          outcome: "unknown",
        },
        { retriable: true },
      );
    }
  });
}

export function postLogoutOf(rep: ClientRep): string[] {
  return (rep.attributes?.[POST_LOGOUT_ATTRIBUTE] ?? "").split("##").filter((u) => u !== "");
}
