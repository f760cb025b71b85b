/**
 * `private_key_jwt` client authentication (RFC 7523 section 2.2; docs/design.md, "Federated
 * connections"): Auth0 and Okta hold the public half of the federation key for one client, and the
 * service proves it is that client with a JWT whose `iss` and `sub` are the client id and whose
 * `aud` is the provider's token endpoint (or tenant URL). Unlike the workload-identity tokens of
 * ./federation.ts the subject is the client, not `sponson:connection:<name>`. An assertion is a
 * registered secret: never logged or stored, and good for one exchange only (a fresh `jti`).
 */
import { importJWK, type JWK, SignJWT } from "jose";
import { SponsonError } from "../../shared/errors";
import type { SecretRegistry } from "../../shared/secrets";
import { loadKeyRing, type RingOptions, ringEntries, signingKey } from "./key-ring";

/**
 * Auth0 takes at most five minutes; one attempt needs seconds. Each attempt of an exchange gets
 * its own assertion (a retry after a lost answer would be refused as a replay), so retry waits
 * never outlive it.
 */
export const CLIENT_ASSERTION_TTL_SECONDS = 60;

export interface ClientAssertionRequest {
  clientId: string;
  /** The provider's token endpoint (Okta) or tenant URL (Auth0), exactly as it checks `aud`. */
  audience: string;
  /** A ring key other than the current one (the kid registered with the provider); unset: current. */
  kid?: string;
  nowMs: number;
}

/** The kid that signs: the one asked for (it must still hold its private part) or the current one. */
async function signer(signingSecret: string, ringOptions: RingOptions, kid: string | undefined) {
  if (kid === undefined) return signingKey(signingSecret, ringOptions);
  const ring = await loadKeyRing(signingSecret, ringOptions);
  const known = ring.verifying.find((k) => k.kid === kid);
  const entry = ringEntries(signingSecret, ringOptions).find(
    (e) => e.kid === kid && e.status !== "retired" && "d" in e && e.d,
  );
  if (!known || !entry || entry.status === "retired") {
    throw new SponsonError(
      "INTERNAL",
      `privateKeyJwt names key "${kid}", which ${ringOptions.name} holds no private key for (npm run -s keygen -- --federation)`,
    );
  }
  const { status: _status, ...jwk } = entry;
  const key = await importJWK({ ...jwk, kid, alg: known.alg } as JWK, known.alg);
  return { kid, alg: known.alg, key };
}

/** The kid an assertion for `kid` is signed with: part of the token cache key, never a secret. */
export async function clientAssertionKid(
  signingSecret: string,
  ringOptions: RingOptions,
  kid: string | undefined,
): Promise<string> {
  if (kid !== undefined) return kid;
  const ring = await loadKeyRing(signingSecret, ringOptions);
  return ring.signer?.kid ?? "";
}

/** `ringOptions`: the federation key ring's (./federation.ts), passed in to keep the modules acyclic. */
export async function mintClientAssertion(
  signingSecret: string,
  ringOptions: RingOptions,
  request: ClientAssertionRequest,
  secrets: SecretRegistry,
): Promise<string> {
  const { kid, alg, key } = await signer(signingSecret, ringOptions, request.kid);
  const now = Math.floor(request.nowMs / 1000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg, kid, typ: "JWT" })
    .setIssuer(request.clientId)
    .setSubject(request.clientId)
    .setAudience(request.audience)
    .setIssuedAt(now)
    .setExpirationTime(now + CLIENT_ASSERTION_TTL_SECONDS)
    .setJti(crypto.randomUUID())
    .sign(key);
  secrets.register(token);
  return token;
}
