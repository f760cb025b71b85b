/**
 * A Cloudflare Access assertion → Caller (docs/security.md, "Cloudflare Access"). Verified as
 * Cloudflare documents: RS256 signed by a key of the team's JWKS, `iss` the team domain, `aud`
 * containing the application's AUD tag, `exp` in the future. The identity (email, and groups when
 * the identity provider passes them) is then looked up in SPONSON_ACCESS's rules; an identity no
 * rule names is refused 403 `access.unmapped`, saying what to add.
 */
import { type JWTPayload, jwtVerify } from "jose";
import { z } from "zod";
import { SponsonError } from "../../shared/errors";
import { type AccessConfig, matchAccessRule } from "./access-config";
import type { AccessKeySource } from "./access-keys";
import type { AccessCaller } from "./caller";

const accessClaimsSchema = z.object({
  email: z.string().min(3).max(320),
  sub: z.string().max(200).optional(),
  /** Cloudflare sets "app" on application assertions (an organization token is not one). */
  type: z.literal("app").optional(),
  groups: z.array(z.string()).max(1000).optional(),
  /** Claims an OIDC identity provider passes through Access, where groups often arrive. */
  custom: z
    .object({ groups: z.array(z.string()).max(1000).optional() })
    .loose()
    .optional(),
});

export async function verifyAccessAssertion(
  token: string,
  config: AccessConfig,
  keys: AccessKeySource,
  options: { now: Date; clockTolerance: number },
): Promise<AccessCaller> {
  const { payload } = await jwtVerify(token, keys(config.teamDomain), {
    issuer: config.teamDomain,
    audience: config.audience,
    algorithms: ["RS256"],
    requiredClaims: ["exp", "iat"],
    currentDate: options.now,
    clockTolerance: options.clockTolerance,
  });
  return accessCaller(payload, config);
}

function accessCaller(payload: JWTPayload, config: AccessConfig): AccessCaller {
  const claims = accessClaimsSchema.safeParse(payload);
  if (!claims.success) {
    throw new SponsonError("UNAUTHENTICATED", "the Access assertion carries no identity (email)", {
      reason: "claims",
    });
  }
  const email = claims.data.email.toLowerCase();
  const groups = [...(claims.data.groups ?? []), ...(claims.data.custom?.groups ?? [])];
  const rule = matchAccessRule(config.identities, { email, groups });
  if (rule === null) {
    // The address is the caller's own (Access proved it), so naming it back tells them nothing new.
    throw new SponsonError(
      "FORBIDDEN",
      `${email} signed in with Cloudflare Access but is not named in SPONSON_ACCESS.identities; ask an admin to add the address, its domain or one of its Access groups`,
      { rule: "access.unmapped" },
    );
  }
  return {
    kind: "access",
    subject: `access:${email}`,
    email,
    role: rule.role,
    scopes: [],
    ...(rule.repository === undefined ? {} : { repository: rule.repository }),
  };
}
