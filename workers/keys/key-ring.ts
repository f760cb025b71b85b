/**
 * Loads a signing-key secret (./key-ring-schema.ts) into what signing and verifying need, for the
 * service tokens' key and the federation key alike (docs/design.md, "Signing keys"). The secret's
 * value is never echoed: a refusal names the secret, not its content.
 */
import { calculateJwkThumbprint, createLocalJWKSet, importJWK, type JWK, type JWTVerifyGetKey } from "jose";
import { SponsonError } from "../../shared/errors";
import { type KeyMaterial, type KeyStatus, type RingEntry, signingSecretSchema } from "./key-ring-schema";

export type SigningAlg = "EdDSA" | "RS256";

export interface RingKey {
  kid: string;
  alg: SigningAlg;
  status: Exclude<KeyStatus, "retired">;
  /** The public half, with kid, alg and use: what a JWKS publishes. */
  publicJwk: JWK;
}

export interface KeyRing {
  /** The key that signs (status `current`); null when the ring only verifies. */
  signer: RingKey | null;
  /** current, next and previous: every key a token may be verified with. */
  verifying: RingKey[];
  /** Kids refused by name (status `retired`). */
  retired: string[];
  getKey: JWTVerifyGetKey;
}

export interface RingOptions {
  /** The secret's name, for messages. */
  name: string;
  alg: SigningAlg;
}

const ALG_OF_KTY = { OKP: "EdDSA", RSA: "RS256" } as const;
const DESCRIPTION: Record<SigningAlg, string> = { EdDSA: "an Ed25519 JWK", RS256: "an RSA (RS256) JWK" };

export function invalidKey(name: string, alg: SigningAlg, why?: string): never {
  // Never echo the value: it is a key.
  console.error(`config: ${name} is not ${DESCRIPTION[alg]}${why ? ` (${why})` : ""}`);
  throw new SponsonError("INTERNAL", `${name} is not ${DESCRIPTION[alg]} or a key ring of them`);
}

function parseJson(raw: string, options: RingOptions): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    console.error(`config: ${options.name} is not JSON`);
    throw new SponsonError("INTERNAL", `${options.name} is not JSON`);
  }
}

export function publicPart(key: KeyMaterial): JWK {
  return key.kty === "OKP" ? { kty: "OKP", crv: key.crv, x: key.x } : { kty: "RSA", n: key.n, e: key.e };
}

/** The entries of the secret, a lone JWK read as the ring's current key. */
export function ringEntries(raw: string, options: RingOptions): RingEntry[] {
  const parsed = signingSecretSchema.safeParse(parseJson(raw, options));
  if (!parsed.success) invalidKey(options.name, options.alg, parsed.error.issues[0]?.message);
  return "keys" in parsed.data ? parsed.data.keys : [{ ...parsed.data, status: "current" }];
}

async function ringKey(entry: Exclude<RingEntry, { status: "retired" }>, options: RingOptions) {
  const alg = ALG_OF_KTY[entry.kty];
  const named = entry.alg === "Ed25519" ? "EdDSA" : entry.alg;
  if (alg !== options.alg || (named !== undefined && named !== alg))
    invalidKey(options.name, options.alg, `a ${alg} key`);
  const base = publicPart(entry);
  const kid = entry.kid ?? (await calculateJwkThumbprint(base));
  return { kid, alg, status: entry.status, publicJwk: { ...base, kid, alg, use: "sig" } } satisfies RingKey;
}

async function buildRing(raw: string, options: RingOptions): Promise<KeyRing> {
  const entries = ringEntries(raw, options);
  const verifying: RingKey[] = [];
  const retired: string[] = [];
  for (const entry of entries) {
    if (entry.status === "retired") retired.push(entry.kid);
    else verifying.push(await ringKey(entry, options));
  }
  return {
    signer: verifying.find((k) => k.status === "current") ?? null,
    verifying,
    retired,
    getKey: createLocalJWKSet({ keys: verifying.map((k) => k.publicJwk) }),
  };
}

const rings = new Map<string, Promise<KeyRing>>();

/** The ring in `raw`, parsed once per isolate and value (a rotated secret is a new value). */
export function loadKeyRing(raw: string, options: RingOptions): Promise<KeyRing> {
  const cacheKey = `${options.name}\u0000${options.alg}\u0000${raw}`;
  let ring = rings.get(cacheKey);
  if (!ring) {
    ring = buildRing(raw, options);
    // A bad value is refused again on every request, never remembered as a good one.
    ring.catch(() => rings.delete(cacheKey));
    if (rings.size > 16) rings.clear();
    rings.set(cacheKey, ring);
  }
  return ring;
}

/** The current key's private half, imported for signing; the secret's value never leaves here. */
export async function signingKey(
  raw: string,
  options: RingOptions,
): Promise<{ kid: string; alg: SigningAlg; key: Awaited<ReturnType<typeof importJWK>> }> {
  const ring = await loadKeyRing(raw, options);
  const signer = ring.signer;
  if (!signer) throw new SponsonError("INTERNAL", `${options.name} has no current key to sign with`);
  const entry = ringEntries(raw, options).find((e) => e.status === "current") as Exclude<
    RingEntry,
    { status: "retired" }
  >;
  const { status: _status, ...jwk } = entry;
  const key = await importJWK({ ...jwk, kid: signer.kid, alg: signer.alg } as JWK, signer.alg);
  return { kid: signer.kid, alg: signer.alg, key };
}

/** A token signed by a retired key: refused with the key's name (docs/design.md, "Signing keys"). */
export function retiredKeyRefusal(kid: string, name: string): SponsonError {
  return new SponsonError(
    "UNAUTHENTICATED",
    `the token is signed by key "${kid}", which ${name} lists as retired; get a token signed by the current key`,
    { reason: "retired-key", kid },
  );
}

/** What is wrong with a signing-key secret, for the config report; null when it loads. */
export function signingSecretProblem(raw: string, options: RingOptions): string | null {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return "is not JSON";
  }
  const parsed = signingSecretSchema.safeParse(json);
  if (!parsed.success)
    return `is not ${DESCRIPTION[options.alg]} or a key ring of them (${parsed.error.issues[0]?.message})`;
  const entries = "keys" in parsed.data ? parsed.data.keys : [{ ...parsed.data, status: "current" as const }];
  for (const entry of entries) {
    if (entry.status !== "retired" && ALG_OF_KTY[entry.kty] !== options.alg)
      return `holds a ${ALG_OF_KTY[entry.kty]} key; its keys are ${DESCRIPTION[options.alg]}s`;
  }
  if (!entries.some((e) => e.status === "current")) return "has no current key to sign with";
  return null;
}
