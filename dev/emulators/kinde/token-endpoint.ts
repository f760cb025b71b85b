/**
 * POST /oauth2/token, client credentials in a form body. Kinde's access tokens are JWTs, and
 * clients read them: `@kinde/management-api-js` reuses a token only while its `aud` holds
 * `https://<business>.kinde.com/api` and `exp` is ahead. The emulator signs its tokens with a key
 * of its own (HS256; Kinde signs RS256 with keys published at /.well-known/jwks.json, which the
 * emulator does not serve) and still finds them in its state, so revoking one is a state change.
 */
import { SignJWT } from "jose";
import type { EmulatorState } from "../emulator";
import { reply } from "./responses";
import { type IssuedToken, type KindeM2m, kindeKeys } from "./state";

/** Emulator-only signing key; it protects nothing real. */
const SIGNING_KEY = new TextEncoder().encode("sponson-kinde-emulator-token-key");
export const KINDE_TOKEN_LIFETIME_SECONDS = 86_399;

export async function issueToken(request: Request, state: EmulatorState): Promise<Response> {
  const form = new URLSearchParams(await request.text());
  const id = form.get("client_id") ?? "";
  const m2m = state.get<KindeM2m>(kindeKeys.m2m(id));
  if (!m2m || m2m.clientSecret !== form.get("client_secret")) {
    return reply(401, {
      error: "invalid_client",
      error_description:
        "Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method).",
    });
  }
  const issuer = `https://${new URL(request.url).host}`;
  const audience = `${issuer}/api`;
  if (form.get("audience") !== audience) {
    return reply(400, {
      error: "invalid_request",
      error_description: "The audience is not valid for this client.",
    });
  }
  const nowSeconds = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({
    azp: id,
    gty: ["client_credentials"],
    scope: m2m.scopes.join(" "),
    scp: m2m.scopes,
    v: "2",
  })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(issuer)
    .setAudience([audience])
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + KINDE_TOKEN_LIFETIME_SECONDS)
    .setJti(crypto.randomUUID())
    .sign(SIGNING_KEY);
  state.put<IssuedToken>(kindeKeys.token(token), {
    scopes: m2m.scopes,
    expiresAt: (nowSeconds + KINDE_TOKEN_LIFETIME_SECONDS) * 1000,
  });
  return reply(200, {
    access_token: token,
    expires_in: KINDE_TOKEN_LIFETIME_SECONDS,
    scope: m2m.scopes.join(" "),
    token_type: "bearer",
  });
}
