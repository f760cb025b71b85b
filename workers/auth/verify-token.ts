/**
 * Bearer token → Caller (docs/design.md, "Security model"). Two kinds of token are accepted, told apart by
 * their (unverified) issuer and then verified with everything pinned for that kind:
 * - GitHub Actions OIDC: RS256 only, issuer GITHUB_OIDC_ISSUER, audience SPONSON_AUDIENCE, keys
 *   from the issuer's JWKS;
 * - service tokens: EdDSA (Ed25519) only, issuer and audience `sponson-edge`, the service's own keys;
 * - Cloudflare Access assertions (workers/auth/access-verify.ts): RS256, issuer SPONSON_ACCESS's team
 *   domain, audience its AUD tag, keys from that team's JWKS.
 * `exp` is required and checked, `nbf` checked when present; `now` is passed in.
 */
import { decodeJwt, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from "jose";
import { SponsonError } from "../../shared/errors";
import { retiredKeyRefusal } from "../keys/key-ring";
import type { AccessKeySource } from "./access-keys";
import { verifyAccessAssertion } from "./access-verify";
import { type AuthConfig, SERVICE_AUDIENCE, SERVICE_ISSUER } from "./auth-config";
import type { Caller } from "./caller";
import { githubCaller, githubClaimsSchema } from "./github-claims";
import { type GithubKeySource, KeySetUnavailable } from "./github-keys";
import { serviceCaller, serviceClaimsSchema } from "./service-claims";
import type { ServiceKeySet } from "./service-keys";
import { assertLifetime } from "./token-lifetime";

/** Allowed clock skew between GitHub, this Worker and the token minter. */
export const CLOCK_TOLERANCE_SECONDS = 30;

export interface VerifyKeys {
  github: GithubKeySource;
  service: ServiceKeySet | null;
  /** Absent: Access assertions are refused (the dashboard form takes service tokens only). */
  access?: AccessKeySource;
}

export type RefusalReason =
  | "missing"
  | "malformed"
  | "issuer"
  | "audience"
  | "expired"
  | "not-yet-valid"
  | "algorithm"
  | "signature"
  | "unknown-key"
  | "claims"
  | "not-configured"
  | "lifetime"
  | "revoked"
  | "retired-key";

export function unauthenticated(reason: RefusalReason, message: string): SponsonError {
  // The reason is a closed vocabulary: nothing from the token is echoed back.
  return new SponsonError("UNAUTHENTICATED", message, { reason });
}

/** Maps jose's failures to deliberately plain reasons (workers-oauth-provider style). */
function refusalOf(err: unknown): SponsonError {
  if (err instanceof SponsonError) return err;
  if (err instanceof KeySetUnavailable) {
    return new SponsonError("PROVIDER_ERROR", "the token issuer's key set could not be fetched; retry later");
  }
  if (err instanceof errors.JWTExpired) return unauthenticated("expired", "the token has expired");
  if (err instanceof errors.JWTClaimValidationFailed) {
    switch (err.claim) {
      case "nbf":
        return unauthenticated("not-yet-valid", "the token is not valid yet (nbf)");
      case "iss":
        return unauthenticated("issuer", "the token's issuer is not accepted");
      case "aud":
        return unauthenticated("audience", "the token's audience is not this service");
      default:
        return unauthenticated("claims", `the token's "${err.claim}" claim is missing or invalid`);
    }
  }
  if (err instanceof errors.JOSEAlgNotAllowed)
    return unauthenticated("algorithm", "the token's algorithm is not accepted");
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return unauthenticated("signature", "the token's signature is invalid");
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) {
    return unauthenticated("unknown-key", "no known key matches the token's key id");
  }
  return unauthenticated("malformed", "the token is not a valid signed JWT");
}

export async function verifyBearer(
  token: string,
  config: AuthConfig,
  keys: VerifyKeys,
  now: Date,
): Promise<Caller> {
  try {
    return await verify(token, config, keys, now);
  } catch (err) {
    throw refusalOf(err);
  }
}

function unverifiedIssuer(token: string): string | undefined {
  let payload: JWTPayload;
  try {
    payload = decodeJwt(token);
  } catch {
    throw unauthenticated("malformed", "the token is not a valid signed JWT");
  }
  return payload.iss;
}

async function verify(token: string, config: AuthConfig, keys: VerifyKeys, now: Date): Promise<Caller> {
  const issuer = unverifiedIssuer(token);
  if (issuer === SERVICE_ISSUER) {
    if (keys.service === null) throw unauthenticated("not-configured", "service tokens are not configured");
    // Named back only because it is one of our own configured kids (docs/design.md, "Signing keys").
    const kid = decodeProtectedHeader(token).kid;
    if (kid !== undefined && keys.service.retired.includes(kid))
      throw retiredKeyRefusal(kid, "SERVICE_SIGNING_KEY");
    const { payload, protectedHeader } = await jwtVerify(token, keys.service.getKey, {
      issuer: SERVICE_ISSUER,
      audience: SERVICE_AUDIENCE,
      algorithms: ["EdDSA"],
      requiredClaims: ["exp", "iat", "sub"],
      currentDate: now,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    });
    const claims = serviceClaimsSchema.safeParse(payload);
    if (!claims.success) throw unauthenticated("claims", "the service token's claims are invalid");
    const times = {
      issuedAt: payload.iat ?? 0,
      expiresAt: payload.exp ?? 0,
      now: Math.floor(now.getTime() / 1000),
      skew: CLOCK_TOLERANCE_SECONDS,
    };
    assertLifetime(claims.data.role, times, config.serviceTokenMaxLifetime);
    const caller = serviceCaller(claims.data, protectedHeader.kid);
    // With several repositories, an unbound ci token would act for whichever one a request names.
    if (caller.role === "ci" && caller.repository === undefined && config.repositories.length > 1) {
      throw new SponsonError(
        "FORBIDDEN",
        "several repositories are configured: a ci token must carry its `repository` claim (npm run token -- --repository owner/name)",
        { rule: "service.repository-required" },
      );
    }
    return caller;
  }
  if (issuer === config.githubIssuer) {
    if (config.audience === null) {
      throw unauthenticated("not-configured", "GitHub tokens are not accepted: SPONSON_AUDIENCE is not set");
    }
    const { payload } = await jwtVerify(token, keys.github(config.githubIssuer), {
      issuer: config.githubIssuer,
      audience: config.audience,
      algorithms: ["RS256"],
      requiredClaims: ["exp", "iat"],
      currentDate: now,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    });
    const claims = githubClaimsSchema.safeParse(payload);
    if (!claims.success)
      throw unauthenticated("claims", "the GitHub token lacks the repository or ref claims");
    return githubCaller(claims.data, config.repositories, config.destroyEnvironments);
  }
  const access = config.access;
  if (access !== null && issuer === access.teamDomain && keys.access !== undefined) {
    return verifyAccessAssertion(token, access, keys.access, {
      now,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    });
  }
  throw unauthenticated("issuer", "the token's issuer is not accepted");
}
