/**
 * What the Auth0 emulator keeps per tenant host (one emulator object per host). Storage keys:
 *   m2m:<client id>      → M2mClient    (machine-to-machine credentials for /oauth/token)
 *   client:<client id>   → Auth0ClientRecord (the applications whose lists ops edit)
 *   token:<access token> → IssuedToken
 *   api:<identifier>     → true (an API of the tenant besides the Management API: a token audience)
 *   demo:provisioned     → true (./demo.ts)
 */
import { z } from "zod";

export const LIST_FIELDS = ["callbacks", "allowed_logout_urls", "web_origins", "allowed_origins"] as const;
export type ListField = (typeof LIST_FIELDS)[number];

export const DEFAULT_M2M_SCOPES = ["read:clients", "update:clients"];

export const m2mClientSchema = z.object({
  /** Client secret authentication; absent: the client authenticates with Private Key JWT only. */
  clientSecret: z.string().optional(),
  /**
   * Private Key JWT credentials (Auth0, "Configure Private Key JWT Authentication"): the public
   * keys registered on the client, or (the emulator's shortcut for the demo tenant) a JWKS URL.
   */
  privateKeyJwt: z
    .object({ keys: z.array(z.record(z.string(), z.unknown())).optional(), jwksUri: z.string().optional() })
    .optional(),
  scopes: z.array(z.string()).default(DEFAULT_M2M_SCOPES),
});
export type M2mClient = z.infer<typeof m2mClientSchema>;

/** An application as GET /api/v2/clients/{id} returns it (the subset the emulator models). */
export interface Auth0ClientRecord {
  client_id: string;
  name: string;
  app_type: string;
  callbacks: string[];
  allowed_logout_urls: string[];
  web_origins: string[];
  allowed_origins: string[];
  [field: string]: unknown;
}

export interface IssuedToken {
  clientId: string;
  scopes: string[];
  /** The API the token is for; absent (tokens stored before it was kept): the Management API. */
  audience?: string;
  /** Epoch ms. */
  expiresAt: number;
}

export const TOKEN_LIFETIME_SECONDS = 86_400;

export const auth0Keys = {
  m2m: (clientId: string) => `m2m:${clientId}`,
  client: (clientId: string) => `client:${clientId}`,
  token: (accessToken: string) => `token:${accessToken}`,
  api: (identifier: string) => `api:${identifier}`,
  demoProvisioned: "demo:provisioned",
} as const;

/**
 * The rest of an application as Auth0 returns it (a SPA created in the dashboard, secrets and
 * signing keys left out): GET without `fields` and every PATCH answer carry these too, with the
 * stored record on top, so a client that reads or writes one field sees the others unchanged.
 */
export function auth0ClientDefaults(id: string, host: string): Record<string, unknown> {
  return {
    tenant: host.split(".")[0],
    global: false,
    is_token_endpoint_ip_header_trusted: false,
    client_id: id,
    description: "",
    callback_url_template: false,
    client_aliases: [],
    allowed_clients: [],
    cross_origin_authentication: false,
    custom_login_page_on: true,
    grant_types: ["authorization_code", "implicit", "refresh_token"],
    is_first_party: true,
    oidc_conformant: true,
    sso_disabled: false,
    token_endpoint_auth_method: "none",
    jwt_configuration: { alg: "RS256", lifetime_in_seconds: 36000, secret_encoded: false },
    refresh_token: {
      expiration_type: "expiring",
      leeway: 0,
      token_lifetime: 2592000,
      idle_token_lifetime: 1296000,
      infinite_token_lifetime: false,
      infinite_idle_token_lifetime: false,
      rotation_type: "rotating",
    },
    client_metadata: {},
    organization_usage: "deny",
    organization_require_behavior: "no_prompt",
    require_pushed_authorization_requests: false,
    require_proof_of_possession: false,
    compliance_level: null,
    native_social_login: { apple: { enabled: false }, facebook: { enabled: false } },
  };
}

/** The application as the API shows it: Auth0's defaults under what the tenant holds. */
export function auth0ClientView(record: Auth0ClientRecord, host: string): Record<string, unknown> {
  return { ...auth0ClientDefaults(record.client_id, host), ...record };
}

/** A full client record from a partial seed: lists default to empty, other fields kept as given. */
export function clientRecord(id: string, seed: Partial<Auth0ClientRecord> = {}): Auth0ClientRecord {
  return {
    name: id,
    app_type: "spa",
    callbacks: [],
    allowed_logout_urls: [],
    web_origins: [],
    allowed_origins: [],
    ...seed,
    client_id: id,
  };
}

/** The Management API's identifier on a tenant host: the audience its tokens must carry. */
export const managementAudience = (host: string) => `https://${host}/api/v2/`;
