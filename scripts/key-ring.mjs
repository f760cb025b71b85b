// The key-ring steps `npm run keygen` takes (docs/deploy.md, "Rotating a signing key"); the Worker
// reads the same format (workers/keys/key-ring-schema.ts). Pure: keys in, ring out.
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from "jose";

export const ALGS = { service: "EdDSA", federation: "RS256" };
const PRIVATE_PARTS = ["d", "p", "q", "dp", "dq", "qi"];

export function publicPart(jwk) {
  return jwk.kty === "OKP" ? { kty: "OKP", crv: jwk.crv, x: jwk.x } : { kty: "RSA", n: jwk.n, e: jwk.e };
}

const withoutPrivate = (jwk) =>
  Object.fromEntries(Object.entries(jwk).filter(([k]) => !PRIVATE_PARTS.includes(k)));

/** A new key for `alg`, with its thumbprint as kid: { privateJwk, publicJwk, kid, privateKey }. */
export async function newKey(alg) {
  const { publicKey, privateKey } =
    alg === "EdDSA"
      ? await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true })
      : await generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicPart(pub));
  return {
    kid,
    privateKey,
    publicJwk: { ...pub, kid, alg },
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg },
  };
}

/** The secret's entries: a ring as is; a lone JWK (private or public) is its current key. */
export async function readRing(text) {
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error("stdin is not JSON: give the secret's value (a key ring or a JWK)");
  }
  const entries = Array.isArray(json?.keys) ? json.keys : [{ ...json, status: "current" }];
  const out = [];
  for (const entry of entries) {
    if (entry.status === "retired") {
      out.push({ kid: entry.kid, status: "retired" });
      continue;
    }
    if (entry.kty !== "OKP" && entry.kty !== "RSA")
      throw new Error("a key of the ring is not an OKP or RSA JWK");
    const kid = entry.kid ?? (await calculateJwkThumbprint(publicPart(entry)));
    out.push({ ...entry, kid, status: entry.status ?? "current" });
  }
  return out;
}

function assertAlg(entries, alg) {
  for (const e of entries) {
    if (e.status === "retired") continue;
    if ((e.kty === "OKP" ? "EdDSA" : "RS256") !== alg)
      throw new Error(`the ring holds a key that is not ${alg}`);
  }
}

/**
 * One rotation: previous → retired (kid only), current → previous (public half only), next (or a
 * new key) → current. Tokens signed by the old current key keep verifying until the next rotation.
 */
export async function rotate(entries, alg) {
  assertAlg(entries, alg);
  const next = entries.find((e) => e.status === "next");
  const promoted = next
    ? { ...next, status: "current" }
    : { ...(await newKey(alg)).privateJwk, status: "current" };
  const out = [];
  for (const e of entries) {
    if (e.status === "retired") out.push(e);
    else if (e.status === "previous") out.push({ kid: e.kid, status: "retired" });
    else if (e.status === "current") out.push({ ...withoutPrivate(e), status: "previous" });
  }
  out.push(promoted);
  return out;
}

/** A new key published (and verifying) before it signs: the next `rotate` promotes it. */
export async function addNext(entries, alg) {
  assertAlg(entries, alg);
  const current = entries.find((e) => e.status === "current");
  if (!current?.d)
    throw new Error("--next needs the secret itself (its current key's private part), not a public key");
  if (entries.some((e) => e.status === "next"))
    throw new Error("the ring already has a next key; --rotate promotes it");
  return [...entries, { ...(await newKey(alg)).privateJwk, status: "next" }];
}

/** One line per key for the operator's records: kid and status, never key material. */
export function describeRing(entries) {
  return entries.map((e) => `  ${e.status.padEnd(8)} ${e.kid}`).join("\n");
}
