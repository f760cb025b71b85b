/**
 * Service-token claims → Caller (docs/design.md, "Security model"). Pure; the signature and lifetime were
 * verified before.
 */
import { z } from "zod";
import { repositoryNameSchema } from "../../shared/schemas/repository";
import { patternProblem } from "../policy/glob";
import type { ServiceCaller } from "./caller";
import { roleSchema } from "./caller";
import { jtiSchema } from "./revoked-tokens";

/** `environment/scope`, `*` allowed in either part (see matchScopePattern). */
export const scopePatternSchema = z
  .string()
  .max(300)
  .regex(/^[^/]+\/.+$/, "a scope pattern is environment/scope, e.g. preview/pr-1 or */pr-2")
  .refine((p) => patternProblem(p) === null, "not a valid pattern");

export const serviceClaimsSchema = z.object({
  sub: z.string().min(1).max(200),
  role: roleSchema,
  scopes: z.array(scopePatternSchema).max(100).optional(),
  /** `owner/name`: binds a ci token to one repository's scopes. */
  repository: repositoryNameSchema.optional(),
  /** The token's id: what an admin names to revoke it (workers/auth/revoked-tokens.ts). */
  jti: jtiSchema.optional(),
  /**
   * Who minted it on the service (`POST /v1/tokens`'s actor); absent on a token signed with the
   * key itself, a person's (workers/auth/token-lineage.ts).
   */
  mintedBy: z.string().min(1).max(300).optional(),
});
export type ServiceClaims = z.infer<typeof serviceClaimsSchema>;

export function serviceCaller(claims: ServiceClaims, keyId?: string): ServiceCaller {
  return {
    kind: "service",
    subject: claims.sub,
    role: claims.role,
    scopes: claims.scopes ?? [],
    ...(claims.repository === undefined ? {} : { repository: claims.repository }),
    ...(claims.jti === undefined ? {} : { tokenId: claims.jti }),
    ...(claims.mintedBy === undefined ? {} : { mintedBy: claims.mintedBy }),
    ...(keyId === undefined ? {} : { keyId }),
  };
}
