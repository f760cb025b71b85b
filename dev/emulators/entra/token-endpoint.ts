/**
 * POST /{tenant}/oauth2/v2.0/token with the client-credentials grant (Microsoft identity platform,
 * "OAuth 2.0 client credentials flow"): client_id and client_secret in the form (or HTTP Basic),
 * scope `https://graph.microsoft.com/.default`. Refusals carry the AADSTS codes the service sends.
 */
import type { EmulatorState } from "../emulator";
import { federatedRefusal } from "./federated-credential";
import { ENTRA_TOKEN_LIFETIME_SECONDS, GRAPH_AUDIENCES, issueGraphToken } from "./graph-token";
import { aadError } from "./responses";
import { type EntraTenant, entraKeys } from "./state";

export const TOKEN_PATH = /^\/([^/]+)\/oauth2\/v2\.0\/token$/;
export const METADATA_PATH = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/;

/** The tenant's OpenID metadata, which MSAL (and so @azure/identity) reads before its first token. */
export function openIdConfiguration(state: EmulatorState, tenantName: string): Response {
  const tenant = state.get<EntraTenant>(entraKeys.tenant(tenantName));
  if (!tenant) {
    return aadError(400, "invalid_tenant", 90002, `Tenant '${tenantName}' not found.`);
  }
  const base = `https://login.microsoftonline.com/${tenant.id}`;
  return new Response(
    JSON.stringify({
      token_endpoint: `${base}/oauth2/v2.0/token`,
      token_endpoint_auth_methods_supported: ["client_secret_post", "private_key_jwt", "client_secret_basic"],
      jwks_uri: `https://login.microsoftonline.com/${tenant.id}/discovery/v2.0/keys`,
      response_modes_supported: ["query", "fragment", "form_post"],
      subject_types_supported: ["pairwise"],
      id_token_signing_alg_values_supported: ["RS256"],
      response_types_supported: ["code", "id_token", "code id_token", "id_token token"],
      scopes_supported: ["openid", "profile", "email", "offline_access"],
      issuer: `${base}/v2.0`,
      request_uri_parameter_supported: false,
      userinfo_endpoint: "https://graph.microsoft.com/oidc/userinfo",
      authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
      device_authorization_endpoint: `${base}/oauth2/v2.0/devicecode`,
      http_logout_supported: true,
      frontchannel_logout_supported: true,
      end_session_endpoint: `${base}/oauth2/v2.0/logout`,
      claims_supported: ["sub", "iss", "aud", "exp", "iat", "tid"],
      kerberos_endpoint: `${base}/kerberos`,
      tenant_region_scope: "EU",
      cloud_instance_name: "microsoftonline.com",
      cloud_graph_host_name: "graph.windows.net",
      msgraph_host: "graph.microsoft.com",
      rbac_url: "https://pas.windows.net",
    }),
    { status: 200, headers: { "content-type": "application/json; charset=utf-8" } },
  );
}

function basicCredentials(request: Request): { id: string; secret: string } | null {
  const basic = request.headers.get("authorization")?.match(/^Basic (\S+)$/i)?.[1];
  if (!basic) return null;
  const [id, ...rest] = atob(basic).split(":");
  return id ? { id: decodeURIComponent(id), secret: decodeURIComponent(rest.join(":")) } : null;
}

export async function issueEntraToken(
  request: Request,
  state: EmulatorState,
  tenantName: string,
  outbound: typeof fetch,
) {
  const form = new URLSearchParams(await request.text());
  const tenant = state.get<EntraTenant>(entraKeys.tenant(tenantName));
  if (!tenant) {
    return aadError(
      400,
      "invalid_request",
      90002,
      `Tenant '${tenantName}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`,
    );
  }
  if (form.get("grant_type") !== "client_credentials") {
    return aadError(
      400,
      "unsupported_grant_type",
      70003,
      `The app requested an unsupported grant type '${form.get("grant_type") ?? ""}'.`,
    );
  }
  const basic = basicCredentials(request);
  const clientId = basic?.id ?? form.get("client_id") ?? "";
  const secret = basic?.secret ?? form.get("client_secret") ?? "";
  const client = tenant.clients[clientId];
  if (!client) {
    return aadError(
      400,
      "unauthorized_client",
      700016,
      `Application with identifier '${clientId}' was not found in the directory '${tenantName}'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant.`,
    );
  }
  const assertionType = form.get("client_assertion_type");
  if (assertionType !== null) {
    const refused = await federatedRefusal(form, client, outbound);
    if (refused) return refused;
  } else if (client.secret === undefined || client.secret !== secret) {
    return aadError(
      401,
      "invalid_client",
      7000215,
      `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${clientId}'.`,
    );
  }
  const scope = form.get("scope") ?? "";
  if (!GRAPH_AUDIENCES.some((aud) => scope === `${aud}/.default`)) {
    return aadError(
      400,
      "invalid_scope",
      1002012,
      `The provided value for scope ${scope} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`,
    );
  }
  const accessToken = await issueGraphToken(
    { tid: tenant.id, appid: clientId, roles: client.roles },
    Date.now(),
  );
  return new Response(
    JSON.stringify({
      token_type: "Bearer",
      expires_in: ENTRA_TOKEN_LIFETIME_SECONDS,
      ext_expires_in: ENTRA_TOKEN_LIFETIME_SECONDS,
      access_token: accessToken,
    }),
    {
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store, no-cache" },
    },
  );
}
