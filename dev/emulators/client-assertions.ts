/**
 * What Auth0 and Okta check of a `private_key_jwt` client assertion (RFC 7523 section 3): signed
 * by a key registered for the client (the public JWKs stored on it, or the JWKS URL it names,
 * fetched as the provider would), `iss` = `sub` = the client id, `aud` the value the provider
 * expects, not expired, and a `jti` never seen before for that client. Each emulator maps a refusal
 * to its own error body.
 */
import { createLocalJWKSet, decodeProtectedHeader, errors, type JWK, jwtVerify } from "jose";
import type { EmulatorState } from "./emulator";

export type ClientAssertionRefusal =
  | "malformed"
  | "no-key"
  | "unknown-kid"
  | "signature"
  | "expired"
  | "lifetime"
  | "audience"
  | "issuer"
  | "replayed";

/** The public keys a client authenticates with: given inline, or a JWKS URL the provider fetches. */
export interface RegisteredKeys {
  keys?: JWK[];
  jwksUri?: string;
}

export type ClientAssertionCheck = { ok: true } | { ok: false; refusal: ClientAssertionRefusal };

async function keySet(registered: RegisteredKeys, outbound: typeof fetch) {
  if (registered.keys && registered.keys.length > 0) return createLocalJWKSet({ keys: registered.keys });
  if (!registered.jwksUri) return null;
  const res = await outbound(registered.jwksUri).catch(() => null);
  if (!res?.ok) return null;
  return createLocalJWKSet((await res.json()) as { keys: JWK[] });
}

const jtiKey = (clientId: string, jti: string) => `assertion-jti:${clientId}:${jti}`;

export async function checkClientAssertion(
  token: string,
  expected: {
    clientId: string;
    audiences: string[];
    registered: RegisteredKeys;
    /** How far ahead `exp` may be (Auth0: five minutes, Okta: an hour). */
    maxLifetimeSeconds: number;
  },
  state: EmulatorState,
  outbound: typeof fetch,
  nowMs: number,
): Promise<ClientAssertionCheck> {
  try {
    decodeProtectedHeader(token);
  } catch {
    return { ok: false, refusal: "malformed" };
  }
  const keys = await keySet(expected.registered, outbound);
  if (!keys) return { ok: false, refusal: "no-key" };
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      algorithms: ["RS256", "RS384", "RS512", "ES256", "PS256"],
      currentDate: new Date(nowMs),
      requiredClaims: ["iss", "sub", "aud", "exp", "jti"],
    }));
  } catch (err) {
    if (err instanceof errors.JWTExpired) return { ok: false, refusal: "expired" };
    if (err instanceof errors.JWKSNoMatchingKey) return { ok: false, refusal: "unknown-kid" };
    if (err instanceof errors.JWSSignatureVerificationFailed) return { ok: false, refusal: "signature" };
    return { ok: false, refusal: "malformed" };
  }
  if (Number(payload.exp) * 1000 - nowMs > expected.maxLifetimeSeconds * 1000)
    return { ok: false, refusal: "lifetime" };
  if (payload.iss !== expected.clientId || payload.sub !== expected.clientId)
    return { ok: false, refusal: "issuer" };
  const aud = payload.aud as string | string[];
  if (!(Array.isArray(aud) ? aud : [aud]).some((a) => expected.audiences.includes(a)))
    return { ok: false, refusal: "audience" };
  const key = jtiKey(expected.clientId, String(payload.jti));
  if (state.get<number>(key) !== undefined) return { ok: false, refusal: "replayed" };
  // Remembered until the assertion could no longer be used anyway.
  state.put(key, Number(payload.exp) * 1000);
  return { ok: true };
}
