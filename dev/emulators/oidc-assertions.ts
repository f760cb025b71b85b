/**
 * What a cloud checks of a token from a third-party OIDC issuer (Google STS, AWS STS, Entra's
 * federated identity credentials): it reads the unverified `iss`, fetches that issuer's discovery
 * document and the JWKS it names, verifies the RS256 signature by `kid`, then `exp`, `aud` and `sub`.
 * The emulators map each refusal to the cloud's own error body.
 */
import { createLocalJWKSet, decodeJwt, errors, jwtVerify } from "jose";

export type AssertionRefusal =
  | "malformed"
  | "issuer"
  | "discovery"
  | "unknown-kid"
  | "signature"
  | "expired"
  | "audience"
  | "subject";

export interface TrustedIssuer {
  issuer: string;
  /** Exactly one subject is trusted (least privilege: one connection, one subject, one role). */
  subject: string;
  audiences: string[];
}

export type AssertionCheck =
  | { ok: true; claims: { iss: string; sub: string; aud: string | string[] } }
  | { ok: false; refusal: AssertionRefusal; presented?: string };

async function issuerKeys(issuer: string, fetchIssuer: typeof fetch) {
  const discovery = await fetchIssuer(`${issuer}/.well-known/openid-configuration`);
  if (!discovery.ok) return null;
  const document = (await discovery.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (document.issuer !== issuer || typeof document.jwks_uri !== "string") return null;
  const jwks = await fetchIssuer(document.jwks_uri);
  if (!jwks.ok) return null;
  return createLocalJWKSet((await jwks.json()) as Parameters<typeof createLocalJWKSet>[0]);
}

export async function checkAssertion(
  token: string,
  trusted: TrustedIssuer,
  fetchIssuer: typeof fetch,
  nowMs: number,
): Promise<AssertionCheck> {
  let iss: unknown;
  let sub: unknown;
  try {
    ({ iss, sub } = decodeJwt(token));
  } catch {
    return { ok: false, refusal: "malformed" };
  }
  if (iss !== trusted.issuer) return { ok: false, refusal: "issuer", presented: String(iss) };
  const keys = await issuerKeys(trusted.issuer, fetchIssuer).catch(() => null);
  if (!keys) return { ok: false, refusal: "discovery" };
  try {
    const { payload } = await jwtVerify(token, keys, {
      issuer: trusted.issuer,
      algorithms: ["RS256"],
      currentDate: new Date(nowMs),
      requiredClaims: ["exp", "iat", "sub", "aud"],
    });
    const aud = payload.aud as string | string[];
    const audiences = Array.isArray(aud) ? aud : [aud];
    if (!audiences.some((a) => trusted.audiences.includes(a)))
      return { ok: false, refusal: "audience", presented: audiences.join(",") };
    if (payload.sub !== trusted.subject)
      return { ok: false, refusal: "subject", presented: String(payload.sub) };
    return { ok: true, claims: { iss: trusted.issuer, sub: payload.sub, aud } };
  } catch (err) {
    if (err instanceof errors.JWTExpired) return { ok: false, refusal: "expired" };
    if (err instanceof errors.JWKSNoMatchingKey) return { ok: false, refusal: "unknown-kid" };
    if (err instanceof errors.JWSSignatureVerificationFailed) return { ok: false, refusal: "signature" };
    return { ok: false, refusal: "malformed", presented: String(sub) };
  }
}
