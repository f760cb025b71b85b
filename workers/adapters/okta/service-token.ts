/**
 * An Okta API service app's access token (Okta, "Implement OAuth for Okta with a service app"):
 * client credentials at the org authorization server, `https://<org>/oauth2/v1/token`, with a
 * `private_key_jwt` client assertion whose `aud` is that endpoint, for the scopes the ops need.
 * The app must not require DPoP (docs/deploy.md, "Okta"): the token is sent as `Bearer`.
 */
import { z } from "zod";
import { type HttpContext, providerJson, withAccessToken } from "../http";
import { clientAssertionFields, namingConnectionOnRefusal, privateKeyJwtCacheName } from "../private-key-jwt";
import { oktaHttp } from "./apps-api";
import type { OktaConfig } from "./config";

/** Read the app and put it back: nothing more. */
export const OKTA_SERVICE_SCOPES = "okta.apps.read okta.apps.manage";

const tokenSchema = z.object({ access_token: z.string().min(1), expires_in: z.number().positive() });

interface OktaTokenContext extends HttpContext {
  config: OktaConfig;
}

export const oktaTokenEndpoint = (domain: string) => `https://${domain}/oauth2/v1/token`;

/** Calls `call` with the Authorization header value: `SSWS <token>`, or a service app's bearer token. */
export async function withOktaAuthorization<T>(
  ctx: OktaTokenContext,
  call: (authorization: string) => Promise<T>,
): Promise<T> {
  const { privateKeyJwt, apiToken, domain } = ctx.config;
  if (!privateKeyJwt) return call(`SSWS ${apiToken ?? ""}`);
  const endpoint = oktaTokenEndpoint(domain);
  const source = {
    endpoint,
    clientId: privateKeyJwt.clientId,
    clientSecret: await privateKeyJwtCacheName("okta", ctx.federation, privateKeyJwt),
    requested: { scope: OKTA_SERVICE_SCOPES },
    async fetchToken() {
      // A new assertion per attempt: Okta refuses one it has seen, even if its answer was lost.
      const form = async () => ({
        body: new URLSearchParams({
          grant_type: "client_credentials",
          scope: OKTA_SERVICE_SCOPES,
          ...(await clientAssertionFields("okta", ctx.federation, privateKeyJwt, endpoint)),
        }).toString(),
      });
      const body = await namingConnectionOnRefusal(ctx.federation, () =>
        providerJson(
          ctx,
          oktaHttp,
          {
            method: "POST",
            read: true,
            url: endpoint,
            headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
            eachAttempt: form,
          },
          tokenSchema,
        ),
      );
      return { accessToken: body.access_token, expiresInSeconds: body.expires_in };
    },
  };
  return withAccessToken(ctx, source, (token) => call(`Bearer ${token}`));
}

/** Buys (or reuses) the service app's token before any lease; nothing for an SSWS connection. */
export async function prepareOktaToken(ctx: OktaTokenContext): Promise<void> {
  if (ctx.config.privateKeyJwt) await withOktaAuthorization(ctx, async () => {});
}
