/**
 * Access tokens of the emulated Google APIs. oauth2.googleapis.com and each API host are separate
 * emulator objects that share no storage, so a token carries what it grants, MACed with a key only
 * the emulators know: `ya29.emu.<payload>.<mac>`. API hosts check the MAC, expiry and scope.
 */
import { base64url } from "jose";

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

/** The claims of a valid, unexpired token; null otherwise. */
export async function verifyGoogleToken(
  authorization: string | null,
  nowMs: number,
): Promise<GoogleTokenClaims | null> {
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
