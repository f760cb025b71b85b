/**
 * Bearer tokens of the emulated Google APIs. oauth2.googleapis.com and each API host are separate
 * emulator objects that share no storage, so an access token carries what it grants, MACed with a
 * key only the emulators know: `ya29.emu.<payload>.<mac>`. API hosts check the MAC, expiry and
 * scope. Google also accepts a service account's self-signed JWT directly as the bearer (what
 * google-auth-library sends with `useJWTAccessWithScope`, or with no scopes): RS256, iss = sub = the
 * account, `scope` claim or `aud` = the API's origin, at most an hour long. The API host verifies it
 * against the account's public key seeded on that host (./state.ts).
 */
import { base64url, decodeJwt, importJWK, type JWTPayload, jwtVerify } from "jose";
import type { EmulatorState } from "../emulator";
import { DEMO_GOOGLE_ACCOUNT, demoJwtOk } from "./demo";
import { type GoogleServiceAccount, googleKeys } from "./state";

/** Emulator-only MAC key; it protects nothing real. */
const MAC_KEY = new TextEncoder().encode("sponson-google-emulator-token-mac");

export interface GoogleTokenClaims {
  /** The service account's email. */
  sub: string;
  scope: string;
  /** Epoch ms. */
  iat: number;
  exp: number;
}

async function mac(payload: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", MAC_KEY, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const sig = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(payload));
  return base64url.encode(new Uint8Array(sig));
}

export async function issueGoogleToken(claims: GoogleTokenClaims): Promise<string> {
  const payload = base64url.encode(JSON.stringify(claims));
  return `ya29.emu.${payload}.${await mac(payload)}`;
}

/** The claims of a valid, unexpired access token or self-signed JWT; null otherwise. */
export async function verifyGoogleToken(
  authorization: string | null,
  nowMs: number,
  api?: { host: string; state: EmulatorState },
): Promise<GoogleTokenClaims | null> {
  const jwt = authorization?.match(/^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/)?.[1];
  if (jwt && api) return verifySelfSignedJwt(jwt, api.host, api.state);
  const match = authorization?.match(/^Bearer ya29\.emu\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/);
  if (!match?.[1] || !match[2]) return null;
  if ((await mac(match[1])) !== match[2]) return null;
  const claims = JSON.parse(new TextDecoder().decode(base64url.decode(match[1]))) as GoogleTokenClaims;
  return claims.exp > nowMs ? claims : null;
}

export const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

export function hasScope(claims: GoogleTokenClaims, accepted: string[]): boolean {
  const granted = claims.scope.split(" ");
  return accepted.some((s) => granted.includes(s));
}

/** A service account's self-signed JWT used as the bearer, as the API at `host` checks it. */
async function verifySelfSignedJwt(
  jwt: string,
  host: string,
  state: EmulatorState,
): Promise<GoogleTokenClaims | null> {
  let claims: JWTPayload;
  try {
    claims = decodeJwt(jwt);
  } catch {
    return null;
  }
  const email = claims.iss;
  if (typeof email !== "string" || (claims.sub !== undefined && claims.sub !== email)) return null;
  const audiences = [`https://${host}/`, `https://${host}`];
  const scoped = typeof claims.scope === "string" && claims.scope !== "";
  if (!scoped && !audiences.includes(String(claims.aud))) return null;
  const account = state.get<GoogleServiceAccount>(googleKeys.serviceAccount(email));
  if (email === DEMO_GOOGLE_ACCOUNT && !account) {
    if (!demoJwtOk(jwt, claims, null)) return null;
  } else {
    if (!account) return null;
    try {
      await jwtVerify(jwt, await importJWK(account.publicJwk, "RS256"), {
        algorithms: ["RS256"],
        maxTokenAge: "3600s",
        ...(scoped ? {} : { audience: audiences }),
      });
    } catch {
      return null;
    }
  }
  return {
    sub: email,
    // An audience-bound JWT grants what the API's scopes would: all of that API.
    scope: scoped ? (claims.scope as string) : CLOUD_PLATFORM,
    iat: (claims.iat ?? 0) * 1000,
    exp: (claims.exp ?? 0) * 1000,
  };
}
