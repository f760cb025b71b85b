/**
 * POST /realms/{realm}/protocol/openid-connect/token, client credentials: the secret in the form
 * body or HTTP Basic (the admin client sends Basic). Access tokens are JWTs the clients decode for
 * `exp` (@keycloak/keycloak-admin-client does); the emulator signs them with a key of its own and
 * still finds them in its state. No refresh token for this grant, as Keycloak's default.
 */
import { SignJWT } from "jose";
import type { EmulatorState } from "../emulator";
import { kcError, kcJson } from "./responses";
import { type KeycloakServiceAccount, type KeycloakToken, keycloakKeys } from "./state";

/** Emulator-only signing key; it protects nothing real. */
const SIGNING_KEY = new TextEncoder().encode("sponson-keycloak-emulator-token-key");
export const KEYCLOAK_TOKEN_LIFETIME_SECONDS = 300;

function credentials(request: Request, form: URLSearchParams): { id: string; secret: string } {
  const basic = request.headers.get("authorization")?.match(/^Basic (\S+)$/i)?.[1];
  if (basic) {
    const [id = "", secret = ""] = atob(basic)
      .split(":")
      .map((p) => decodeURIComponent(p.replaceAll("+", " ")));
    return { id, secret };
  }
  return { id: form.get("client_id") ?? "", secret: form.get("client_secret") ?? "" };
}

export async function issueToken(request: Request, state: EmulatorState, realm: string): Promise<Response> {
  if (!state.get<boolean>(keycloakKeys.realm(realm))) return kcError(404, "Realm does not exist");
  const form = new URLSearchParams(await request.text());
  if (form.get("grant_type") !== "client_credentials") {
    return kcError(400, "unsupported_grant_type", "Unsupported grant_type");
  }
  const { id, secret } = credentials(request, form);
  const account = state.get<KeycloakServiceAccount>(keycloakKeys.service(realm, id));
  if (!account || account.secret !== secret) {
    return kcError(401, "unauthorized_client", "Invalid client or Invalid client credentials");
  }
  const issuer = `https://${new URL(request.url).host}/realms/${realm}`;
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({
    azp: id,
    typ: "Bearer",
    resource_access: { "realm-management": { roles: account.roles } },
  })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(issuer)
    .setIssuedAt(now)
    .setExpirationTime(now + KEYCLOAK_TOKEN_LIFETIME_SECONDS)
    .setJti(crypto.randomUUID())
    .sign(SIGNING_KEY);
  state.put<KeycloakToken>(keycloakKeys.token(token), {
    realm,
    roles: account.roles,
    expiresAt: (now + KEYCLOAK_TOKEN_LIFETIME_SECONDS) * 1000,
  });
  return kcJson(200, {
    access_token: token,
    expires_in: KEYCLOAK_TOKEN_LIFETIME_SECONDS,
    refresh_expires_in: 0,
    token_type: "Bearer",
    "not-before-policy": 0,
    scope: "profile email",
  });
}
