/**
 * The service's own token keys (docs/design.md, "Security model"): an Ed25519 private JWK in the secret
 * SERVICE_SIGNING_KEY, whose public half is derived, plus optional extra public keys in
 * SERVICE_PUBLIC_KEY (a JWK or a JWKS), e.g. the previous key during a rotation or a verify-only
 * deployment. Both are registered secrets (docs/design.md, "Vocabulary"): never logged, stored or returned.
 */
import { calculateJwkThumbprint, createLocalJWKSet, type JWK, type JWTVerifyGetKey } from "jose";
import { z } from "zod";
import { SponsonError } from "../../shared/errors";
import type { SecretRegistry } from "../../shared/secrets";

const publicJwkSchema = z.object({
  kty: z.literal("OKP"),
  crv: z.literal("Ed25519"),
  x: z.string().min(40),
  kid: z.string().min(1).optional(),
});
export const privateJwkSchema = publicJwkSchema.extend({ d: z.string().min(40) });
const publicKeysSchema = z.union([publicJwkSchema, z.object({ keys: z.array(publicJwkSchema).min(1) })]);

export interface ServiceKeySet {
  getKey: JWTVerifyGetKey;
  kids: string[];
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

function invalid(name: string): never {
  console.error(`config: ${name} is not an Ed25519 JWK`);
  throw new SponsonError("INTERNAL", `${name} is not an Ed25519 JWK`);
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
  if (signingKey !== null) {
    const parsed = privateJwkSchema.safeParse(parseJson(signingKey, "SERVICE_SIGNING_KEY"));
    if (!parsed.success) invalid("SERVICE_SIGNING_KEY");
    jwks.push(await asVerificationKey(parsed.data));
  }
  if (publicKeys !== null) {
    const parsed = publicKeysSchema.safeParse(parseJson(publicKeys, "SERVICE_PUBLIC_KEY"));
    if (!parsed.success) invalid("SERVICE_PUBLIC_KEY");
    for (const jwk of "keys" in parsed.data ? parsed.data.keys : [parsed.data]) {
      const key = await asVerificationKey(jwk);
      if (!jwks.some((k) => k.kid === key.kid)) jwks.push(key);
    }
  }
  if (jwks.length === 0) return null;
  return { getKey: createLocalJWKSet({ keys: jwks }), kids: jwks.map((k) => k.kid as string) };
}

/**
 * Registers the signing key's values, the whole JSON and its private scalar `d`, so that a log
 * line, receipt or message containing either is redacted or refused.
 */
export function registerAuthSecrets(secrets: SecretRegistry, env: Record<string, unknown>): void {
  const raw = env.SERVICE_SIGNING_KEY;
  if (typeof raw !== "string") return;
  secrets.register(raw);
  try {
    const d = (JSON.parse(raw) as { d?: unknown }).d;
    if (typeof d === "string") secrets.register(d);
  } catch {
    // Not JSON: the raw value is registered, and loading it refuses requests anyway.
  }
}
