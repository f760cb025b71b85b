/**
 * The OAuth 2.0 client-credentials grant as most providers take it (RFC 6749 section 4.4): a
 * form-encoded POST of the client's id and secret, answered `{ access_token, expires_in }`.
 * Providers that send JSON (Auth0) or an assertion (Entra federated) build their own source.
 */
import { z } from "zod";
import { type HttpContext, type ProviderHttpSpec, providerJson } from "./provider-request";
import type { TokenSource } from "./token-cache";

const tokenSchema = z.object({ access_token: z.string().min(1), expires_in: z.number().positive() });

export interface FormClientCredentials {
  endpoint: string;
  clientId: string;
  clientSecret: string;
  /** Extra form fields the provider requires (Kinde's `audience`). */
  extra?: Readonly<Record<string, string>>;
}

export function formClientCredentials(
  ctx: HttpContext,
  spec: ProviderHttpSpec,
  grant: FormClientCredentials,
): TokenSource {
  const { endpoint, clientId, clientSecret, extra } = grant;
  return {
    endpoint,
    clientId,
    clientSecret,
    async fetchToken() {
      const body = await providerJson(
        ctx,
        spec,
        {
          method: "POST",
          read: true,
          url: endpoint,
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "client_credentials",
            client_id: clientId,
            client_secret: clientSecret,
            ...extra,
          }).toString(),
        },
        tokenSchema,
      );
      return { accessToken: body.access_token, expiresInSeconds: body.expires_in };
    },
  };
}
