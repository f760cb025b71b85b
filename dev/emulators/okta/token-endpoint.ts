/**
 * The org authorization server's token endpoint, POST /oauth2/v1/token (Okta, "Implement OAuth for
 * Okta with a service app"): client credentials for an API service app that authenticates with
 * `private_key_jwt` (`aud` = this endpoint's URL), for Okta API scopes the app was granted. The
 * access token is then sent as `Bearer` to the management APIs. An app that requires DPoP refuses
 * a request without a DPoP proof, as Okta does for new service apps unless it is turned off.
 */
import type { JWK } from "jose";
import { type ClientAssertionRefusal, checkClientAssertion } from "../client-assertions";
import type { EmulatorState } from "../emulator";
import { reply } from "./responses";
import { type OktaAccessToken, type OktaServiceApp, oktaKeys } from "./state";

export const TOKEN_PATH = "/oauth2/v1/token";
const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
export const OKTA_ACCESS_TOKEN_SECONDS = 3600;

const DESCRIPTIONS: Record<ClientAssertionRefusal, string> = {
  malformed: "The client_assertion is not a valid JWT.",
  "no-key": "The client_assertion signature is invalid.",
  "unknown-kid": "The client_assertion signature is invalid.",
  signature: "The client_assertion signature is invalid.",
  expired: "The client_assertion token is expired.",
  lifetime: "The client_assertion token has an expiration too far in the future.",
  audience: "The audience claim for client_assertion must be the endpoint invoked for the request.",
  issuer: "The issuer and subject claims of the client_assertion must be the client_id.",
  replayed: "The client_assertion token has already been used.",
};

const oauthError = (status: number, error: string, description: string, headers: Record<string, string>) =>
  reply(status, { error, error_description: description }, headers);

export async function issueOktaToken(
  request: Request,
  state: EmulatorState,
  outbound: typeof fetch,
  headers: Record<string, string>,
): Promise<Response> {
  const url = new URL(request.url);
  const form = new URLSearchParams(await request.text());
  if (form.get("grant_type") !== "client_credentials") {
    return oauthError(
      400,
      "unsupported_grant_type",
      "The authorization grant type is not supported by the authorization server.",
      headers,
    );
  }
  const clientId = form.get("client_id") ?? "";
  const app = state.get<OktaServiceApp>(oktaKeys.serviceApp(clientId));
  if (!app) return oauthError(401, "invalid_client", "The client_id is invalid.", headers);
  if (form.get("client_assertion_type") !== JWT_BEARER || !form.get("client_assertion")) {
    return oauthError(
      401,
      "invalid_client",
      "Client authentication failed: this client requires private_key_jwt.",
      headers,
    );
  }
  const check = await checkClientAssertion(
    form.get("client_assertion") ?? "",
    {
      clientId,
      audiences: [`${url.origin}${TOKEN_PATH}`],
      registered: { keys: app.keys as JWK[] | undefined, jwksUri: app.jwksUri },
      maxLifetimeSeconds: 3_600,
    },
    state,
    outbound,
    Date.now(),
  );
  if (!check.ok) return oauthError(401, "invalid_client", DESCRIPTIONS[check.refusal], headers);
  if (app.requireDpop && !request.headers.has("dpop")) {
    return oauthError(400, "invalid_dpop_proof", "The DPoP proof JWT header is missing.", headers);
  }
  const scopes = (form.get("scope") ?? "").split(" ").filter((s) => s !== "");
  if (scopes.length === 0 || scopes.some((s) => !app.scopes.includes(s))) {
    return oauthError(
      400,
      "invalid_scope",
      "One or more scopes are not configured for the authorization server resource.",
      headers,
    );
  }
  const accessToken = `eyJemu.${crypto.randomUUID().replaceAll("-", "")}`;
  state.put<OktaAccessToken>(oktaKeys.accessToken(accessToken), {
    clientId,
    scopes,
    expiresAt: Date.now() + OKTA_ACCESS_TOKEN_SECONDS * 1000,
  });
  return reply(
    200,
    {
      token_type: "Bearer",
      expires_in: OKTA_ACCESS_TOKEN_SECONDS,
      access_token: accessToken,
      scope: scopes.join(" "),
    },
    { ...headers, "cache-control": "no-store", pragma: "no-cache" },
  );
}
