// A service token signed as the Worker verifies it (docs/design.md, "Signing keys"): by the current
// key of SERVICE_SIGNING_KEY, a key ring or (the format before rotation) a lone Ed25519 JWK, with
// that key's kid in the header. Pure: the secret's value in, the token out; nothing is printed.
import { importJWK, SignJWT } from "jose";
import { readRing } from "./key-ring.mjs";

/** The ring's current key: { kid, jwk } (private), or an Error naming what is wrong, never the key. */
export async function currentServiceKey(secretValue) {
  const entries = await readRing(secretValue);
  const current = entries.filter((e) => e.status === "current");
  if (current.length !== 1) throw new Error("SERVICE_SIGNING_KEY has no single current key to sign with");
  const { status: _status, ...jwk } = current[0];
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.d !== "string")
    throw new Error("SERVICE_SIGNING_KEY's current key is not an Ed25519 private JWK");
  return { kid: jwk.kid, jwk };
}

/** claims: { role, scopes?, repository?, sub, ttl }; returns { token, jti, kid }. */
export async function signServiceToken(secretValue, { role, scopes = [], repository, sub, ttl }) {
  const { kid, jwk } = await currentServiceKey(secretValue);
  const now = Math.floor(Date.now() / 1000);
  const claims = { role };
  if (role !== "admin" && scopes.length > 0) claims.scopes = scopes;
  if (repository !== undefined) claims.repository = repository;
  const jti = crypto.randomUUID();
  const { kid: _kid, alg: _alg, ...key } = jwk;
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: "EdDSA", kid, typ: "JWT" })
    .setIssuer("sponson-edge")
    .setAudience("sponson-edge")
    .setSubject(sub)
    .setIssuedAt(now)
    .setExpirationTime(now + ttl)
    .setJti(jti)
    .sign(await importJWK(key, "EdDSA"));
  return { token, jti, kid };
}
