/**
 * `POST /v1/tokens` (admin): service tokens for CI and viewers minted by the deployed service, so
 * the production signing key never leaves it (docs/deploy.md, "Tokens"). Admin tokens are not
 * minted here: an admin comes from `npm run keygen`'s operator, not from another token.
 */
import { z } from "zod";
import { repositoryNameSchema } from "./repository";

/** 90 days: long enough for a CI secret's rotation cycle, short enough that a leak ends. */
export const MAX_TOKEN_TTL_SECONDS = 90 * 24 * 3600;

export const tokenRequestSchema = z.strictObject({
  role: z.enum(["ci", "viewer"]),
  /** Who the token is for, recorded as the actor of what it does, e.g. `ci:acme/web`. */
  subject: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:/@-]{0,199}$/, "a subject such as ci:acme/web"),
  /** `environment/scope` patterns a ci token may act on, e.g. `preview/*`. */
  scopes: z.array(z.string().max(300)).max(100).optional(),
  /** Binds a ci token to one repository's scopes. */
  repository: repositoryNameSchema.optional(),
  ttlSeconds: z.number().int().min(60).max(MAX_TOKEN_TTL_SECONDS),
});
export type TokenRequest = z.infer<typeof tokenRequestSchema>;

export const mintedTokenSchema = z.object({
  token: z.string(),
  /** The token's id (`jti`), as the audit record names it. */
  id: z.string(),
  subject: z.string(),
  role: z.enum(["ci", "viewer"]),
  expiresAt: z.number().int(),
});
export type MintedToken = z.infer<typeof mintedTokenSchema>;
