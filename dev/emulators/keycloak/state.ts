/**
 * What the Keycloak emulator keeps per server host (a self-hosted Keycloak, e.g.
 * keycloak.acme.com). Storage keys:
 *   realm:<realm>                   → true (the realm exists)
 *   svc:<realm>:<client id>         → KeycloakServiceAccount (a confidential client with service-account roles)
 *   token:<access token>            → KeycloakToken
 *   client:<realm>:<internal id>    → KeycloakClientRecord (the representation and its authorization settings)
 *   demo:provisioned                → true (./demo.ts)
 */

/** realm-management roles the emulator checks (manage-clients covers lookup, GET and PUT). */
export type KeycloakRole = "manage-clients" | "view-clients" | "query-clients";

export interface KeycloakServiceAccount {
  secret: string;
  roles: KeycloakRole[];
}

export interface KeycloakToken {
  /** The realm that issued it: master reaches every realm, any other only itself. */
  realm: string;
  roles: KeycloakRole[];
  /** Epoch ms. */
  expiresAt: number;
}

export type ClientRepresentation = Record<string, unknown> & {
  id: string;
  clientId: string;
  redirectUris?: string[];
  webOrigins?: string[];
  attributes?: Record<string, string>;
  authorizationServicesEnabled?: boolean;
};

export interface KeycloakClientRecord {
  rep: ClientRepresentation;
  /** Authorization Services settings (resources, policies): gone when a PUT does not say `true`. */
  authz?: { resources: string[]; policies: string[] } | undefined;
}

export const keycloakKeys = {
  realm: (realm: string) => `realm:${realm}`,
  service: (realm: string, clientId: string) => `svc:${realm}:${clientId}`,
  token: (token: string) => `token:${token}`,
  client: (realm: string, id: string) => `client:${realm}:${id}`,
} as const;

export const POST_LOGOUT_ATTRIBUTE = "post.logout.redirect.uris";

/** A confidential OIDC client as the admin console creates one, with Authorization Services on. */
export function keycloakClient(
  id: string,
  clientId: string,
  lists: { redirectUris?: string[]; webOrigins?: string[]; postLogout?: string[] } = {},
): KeycloakClientRecord {
  return {
    rep: {
      id,
      clientId,
      name: "Previews",
      surrogateAuthRequired: false,
      enabled: true,
      alwaysDisplayInConsole: false,
      clientAuthenticatorType: "client-secret",
      redirectUris: lists.redirectUris ?? [],
      webOrigins: lists.webOrigins ?? [],
      notBefore: 0,
      bearerOnly: false,
      consentRequired: false,
      standardFlowEnabled: true,
      implicitFlowEnabled: false,
      directAccessGrantsEnabled: false,
      serviceAccountsEnabled: true,
      authorizationServicesEnabled: true,
      publicClient: false,
      frontchannelLogout: true,
      protocol: "openid-connect",
      attributes: {
        "pkce.code.challenge.method": "S256",
        [POST_LOGOUT_ATTRIBUTE]: (lists.postLogout ?? []).join("##"),
        "backchannel.logout.session.required": "true",
      },
      fullScopeAllowed: true,
      nodeReRegistrationTimeout: -1,
      defaultClientScopes: ["web-origins", "profile", "roles", "email"],
      optionalClientScopes: ["address", "phone", "offline_access"],
    },
    authz: { resources: ["Default Resource"], policies: ["Default Policy"] },
  };
}
