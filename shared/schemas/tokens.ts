/**
 * `POST /v1/tokens` (admin): service tokens minted by the deployed service, so the production
 * signing key never leaves it (docs/deploy.md, "Tokens"). Any role, admin included: an admin token
 * needs a `reason` (audited), and lasting admin access is minting a new one, never a key rotation.
 * `ttlSeconds` is further bounded per role by SERVICE_TOKEN_MAX_LIFETIME_SECONDS (checked by the route,
 * which reads the configuration).
 */
import { z } from "zod";
import { repositoryNameSchema } from "./repository";

/** An outer sanity bound only; the per-role maximum is the configured one (admin: a day by default). */
export const MAX_TOKEN_TTL_SECONDS = 366 * 24 * 3600;

export const tokenRequestSchema = z
  .strictObject({
    role: z.enum(["ci", "viewer", "admin"]),
    /** Who the token is for, recorded as the actor of what it does, e.g. `ci:acme/web`. */
    subject: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:/@-]{0,199}$/, "a subject such as ci:acme/web"),
    /** `environment/scope` patterns a ci token may act on, e.g. `preview/*`. */
    scopes: z.array(z.string().max(300)).max(100).optional(),
    /** Binds a ci token's actions and a ci or viewer token's reads to one repository. */
    repository: repositoryNameSchema.optional(),
    /** Why this token exists: required for admin tokens, recorded in the audit trail. */
    reason: z.string().trim().min(1).max(500).optional(),
    ttlSeconds: z.number().int().min(60).max(MAX_TOKEN_TTL_SECONDS),
  })
  .superRefine((body, ctx) => {
    if (body.role !== "ci" && body.scopes !== undefined)
      ctx.addIssue({ code: "custom", path: ["scopes"], message: "scopes bind ci tokens only" });
    if (body.role === "admin" && body.repository !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["repository"],
        message: "an admin token is never bound to a repository (it names one per request)",
      });
    if (body.role === "admin" && body.reason === undefined)
      ctx.addIssue({ code: "custom", path: ["reason"], message: "an admin token needs a reason (audited)" });
  });
export type TokenRequest = z.infer<typeof tokenRequestSchema>;

export const mintedTokenSchema = z.object({
  token: z.string(),
  /** The token's id (`jti`), as the audit record names it. */
  id: z.string(),
  subject: z.string(),
  role: z.enum(["ci", "viewer", "admin"]),
  expiresAt: z.number().int(),
});
export type MintedToken = z.infer<typeof mintedTokenSchema>;
