/**
 * POST /token with the jwt-bearer grant. The assertion is checked like Google does: the signing
 * service account must exist (its public key is seeded), the RS256 signature must verify, aud must
 * be the token endpoint, and the lifetime at most one hour.
 */
import { decodeJwt, importJWK, jwtVerify } from "jose";
import type { EmulatorState } from "../emulator";
import { EMULATOR_NOW_HEADER } from "../knobs";
import { issueGoogleToken } from "./access-token";
import { DEMO_GOOGLE_ACCOUNT, demoJwtOk } from "./demo";
import { googleJson } from "./responses";
import { type GoogleServiceAccount, googleKeys } from "./state";

export const GOOGLE_TOKEN_LIFETIME_SECONDS = 3_599;
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const AUDIENCE = "https://oauth2.googleapis.com/token";

export const oauthError = (status: number, error: string, description: string) =>
  googleJson(status, { error, error_description: description });

export async function issueToken(request: Request, state: EmulatorState): Promise<Response> {
  const form = new URLSearchParams(await request.text());
  if (form.get("grant_type") !== JWT_BEARER) {
    return oauthError(400, "unsupported_grant_type", `Invalid grant_type: ${form.get("grant_type") ?? ""}`);
  }
  const assertion = form.get("assertion") ?? "";
  let claims: ReturnType<typeof decodeJwt>;
  try {
    claims = decodeJwt(assertion);
  } catch {
    return oauthError(
      400,
      "invalid_grant",
      "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe",
    );
  }
  const account =
    typeof claims.iss === "string"
      ? state.get<GoogleServiceAccount>(googleKeys.serviceAccount(claims.iss))
      : undefined;
  if (claims.iss === DEMO_GOOGLE_ACCOUNT && !account) {
    // The demo account (./demo.ts): claims checked, signature not (its key is made at each start).
    if (!demoJwtOk(assertion, claims, AUDIENCE))
      return oauthError(400, "invalid_grant", "Invalid JWT Signature.");
  } else {
    if (!account) return oauthError(400, "invalid_grant", "Invalid grant: account not found");
    try {
      await jwtVerify(assertion, await importJWK(account.publicJwk, "RS256"), {
        algorithms: ["RS256"],
        audience: AUDIENCE,
        maxTokenAge: "3600s",
        // A test on a clock of its own (days passing in a property history) says so per request:
        // the assertion's `iat` is judged on the caller's clock, as Google judges it on a true one.
        ...callerDate(request),
      });
    } catch {
      return oauthError(400, "invalid_grant", "Invalid JWT Signature.");
    }
  }
  if (typeof claims.scope !== "string" || claims.scope === "") {
    return oauthError(400, "invalid_scope", "Invalid OAuth scope or ID token audience provided.");
  }
  const nowMs = Date.now();
  const accessToken = await issueGoogleToken({
    sub: claims.iss as string,
    scope: claims.scope,
    iat: nowMs,
    exp: nowMs + GOOGLE_TOKEN_LIFETIME_SECONDS * 1000,
  });
  return googleJson(200, {
    access_token: accessToken,
    expires_in: GOOGLE_TOKEN_LIFETIME_SECONDS,
    token_type: "Bearer",
  });
}

/** The caller's clock, when a test stamped the request with it (EMULATOR_NOW_HEADER). */
function callerDate(request: Request): { currentDate?: Date } {
  const stamped = Number(request.headers.get(EMULATOR_NOW_HEADER));
  return Number.isFinite(stamped) && stamped > 0 ? { currentDate: new Date(stamped) } : {};
}
