/**
 * What the Okta emulator keeps per org host. Storage keys:
 *   token:<api token> → OktaToken (SSWS API tokens)
 *   service-app:<client id> → OktaServiceApp (API service apps, private_key_jwt)
 *   access-token:<token>    → OktaAccessToken (issued at /oauth2/v1/token, sent as Bearer)
 *   app:<app id>      → the app as stored (./apps-endpoint.ts)
 *   demo:provisioned  → true (./demo.ts)
 */

export interface OktaToken {
  /** A read-only admin may GET apps but not change them. */
  readOnly?: boolean;
}

/** An API service app: its public keys (or JWKS URL) and the Okta API scopes it was granted. */
export interface OktaServiceApp {
  keys?: Record<string, unknown>[];
  jwksUri?: string;
  scopes: string[];
  /** Okta's "Require Demonstrating Proof of Possession (DPoP) header in token requests". */
  requireDpop?: boolean;
}

export interface OktaAccessToken {
  clientId: string;
  scopes: string[];
  /** Epoch ms. */
  expiresAt: number;
}

export const oktaKeys = {
  token: (t: string) => `token:${t}`,
  app: (id: string) => `app:${id}`,
  serviceApp: (clientId: string) => `service-app:${clientId}`,
  accessToken: (token: string) => `access-token:${token}`,
} as const;

/** An OIDC web app as Okta returns it (the fields the emulator models). */
export function oktaOidcApp(
  id: string,
  oauthClient: { redirect_uris?: string[]; post_logout_redirect_uris?: string[] },
) {
  return {
    id,
    name: "oidc_client",
    label: "Previews",
    status: "ACTIVE",
    created: "2026-01-05T10:00:00.000Z",
    lastUpdated: "2026-01-05T10:00:00.000Z",
    signOnMode: "OPENID_CONNECT",
    credentials: {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Okta's own expression syntax, sent as is.
      userNameTemplate: { template: "${source.login}", type: "BUILT_IN" },
      oauthClient: {
        client_id: id,
        token_endpoint_auth_method: "client_secret_basic",
        autoKeyRotation: true,
      },
    },
    settings: {
      app: {},
      oauthClient: {
        grant_types: ["authorization_code"],
        response_types: ["code"],
        application_type: "web",
        consent_method: "REQUIRED",
        ...oauthClient,
      },
    },
    _links: { self: { href: `https://example.okta.com/api/v1/apps/${id}` } },
  };
}
