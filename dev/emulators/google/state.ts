/**
 * Google service accounts the emulators know. Storage key on oauth2.googleapis.com, and on each API
 * host that accepts the account's self-signed JWTs as bearer tokens (hosts share no storage):
 *   sa:<email> → GoogleServiceAccount (its public key)
 */
import type { JWK } from "jose";

export interface GoogleServiceAccount {
  publicJwk: JWK;
}

export const googleKeys = { serviceAccount: (email: string) => `sa:${email}` } as const;
