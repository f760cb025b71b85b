/**
 * `npm start`: the demo Google service account. No key pair is committed: scripts/start.mjs makes a
 * throwaway RSA key for it at each start, so the emulators cannot know its public key and accept any
 * well-formed RS256 JWT from this one account (right audience, lifetime) without checking the
 * signature. Every other account's signature is verified against its seeded public key.
 */
import { decodeProtectedHeader, type JWTPayload } from "jose";

export const DEMO_GOOGLE_ACCOUNT = "sponson-demo@sponson-demo.iam.gserviceaccount.com";

/** A well-formed RS256 JWT for `audience` (or any, when null), live now, at most an hour long. */
export function demoJwtOk(jwt: string, claims: JWTPayload, audience: string | null): boolean {
  const nowSeconds = Date.now() / 1000;
  const { iat, exp } = claims;
  return (
    decodeProtectedHeader(jwt).alg === "RS256" &&
    (audience === null || claims.aud === audience) &&
    typeof iat === "number" &&
    typeof exp === "number" &&
    exp > nowSeconds &&
    exp - iat <= 3600 &&
    iat <= nowSeconds + 300
  );
}
