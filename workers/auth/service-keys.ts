/**
 * The service's own token keys (docs/design.md, "Security model" and "Signing keys"): the secret
 * SERVICE_SIGNING_KEY holds an Ed25519 private JWK or a key ring of them (workers/keys/: current,
 * next, previous, retired), plus optional extra public keys in SERVICE_PUBLIC_KEY (a JWK or a JWKS),
 * e.g. a verify-only deployment. Both are registered secrets (docs/design.md, "Vocabulary"): never
 * logged, stored or returned.
 */
import { calculateJwkThumbprint, createLocalJWKSet, type JWK, type JWTVerifyGetKey } from "jose";
import { z } from "zod";
import { SponsonError } from "../../shared/errors";
import type { SecretRegistry } from "../../shared/secrets";
import { invalidKey, loadKeyRing, type RingOptions } from "../keys/key-ring";
import { registerKeySecrets } from "../keys/register-secrets";

export const SERVICE_KEY_RING: RingOptions = { name: "SERVICE_SIGNING_KEY", alg: "EdDSA" };

const publicJwkSchema = z.object({
  kty: z.literal("OKP"),
  crv: z.literal("Ed25519"),
  x: z.string().min(40),
  kid: z.string().min(1).optional(),
});
const publicKeysSchema = z.union([publicJwkSchema, z.object({ keys: z.array(publicJwkSchema).min(1) })]);

export interface ServiceKeySet {
  getKey: JWTVerifyGetKey;
  kids: string[];
  /** Kids the ring lists as retired: a token naming one is refused with that name. */
  retired: string[];
}

function parseJson(raw: string, name: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    // Never echo the value: it is a key.
    console.error(`config: ${name} is not JSON`);
    throw new SponsonError("INTERNAL", `${name} is not JSON`);
  }
}

/** The public verification key with its kid (the RFC 7638 thumbprint unless the JWK names one). */
async function asVerificationKey(jwk: z.infer<typeof publicJwkSchema>): Promise<JWK> {
  const base = { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
  return { ...base, kid: jwk.kid ?? (await calculateJwkThumbprint(base)), alg: "EdDSA", use: "sig" };
}

let cached: { raw: string; keys: Promise<ServiceKeySet | null> } | undefined;

/** Null when neither secret is set: then no service token verifies. */
export function serviceKeySet(
  signingKey: string | null,
  publicKeys: string | null,
): Promise<ServiceKeySet | null> {
  const raw = JSON.stringify([signingKey, publicKeys]);
  if (cached?.raw !== raw) cached = { raw, keys: buildKeySet(signingKey, publicKeys) };
  return cached.keys;
}

async function buildKeySet(
  signingKey: string | null,
  publicKeys: string | null,
): Promise<ServiceKeySet | null> {
  const jwks: JWK[] = [];
  const retired: string[] = [];
  if (signingKey !== null) {
    const ring = await loadKeyRing(signingKey, SERVICE_KEY_RING);
    jwks.push(...ring.verifying.map((k) => k.publicJwk));
    retired.push(...ring.retired);
  }
  if (publicKeys !== null) {
    const parsed = publicKeysSchema.safeParse(parseJson(publicKeys, "SERVICE_PUBLIC_KEY"));
    if (!parsed.success) invalidKey("SERVICE_PUBLIC_KEY", "EdDSA");
    for (const jwk of "keys" in parsed.data ? parsed.data.keys : [parsed.data]) {
      const key = await asVerificationKey(jwk);
      if (!jwks.some((k) => k.kid === key.kid) && !retired.includes(key.kid as string)) jwks.push(key);
    }
  }
  if (jwks.length === 0 && retired.length === 0) return null;
  return { getKey: createLocalJWKSet({ keys: jwks }), kids: jwks.map((k) => k.kid as string), retired };
}

/** Registers every private part of both signing key rings (workers/keys/register-secrets.ts). */
export function registerAuthSecrets(secrets: SecretRegistry, env: Record<string, unknown>): void {
  registerKeySecrets(secrets, env.SERVICE_SIGNING_KEY);
  registerKeySecrets(secrets, env.FEDERATION_SIGNING_KEY);
}
