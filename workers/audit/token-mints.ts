/**
 * Token mints in the audit trail (docs/storage.md, "Audit trail"; docs/security.md, "Service
 * tokens"): one R2 object per token `POST /v1/tokens` signed, written before the token is handed
 * out. Who minted it, for whom, which role and repository, for how long and why, and its `jti` (what
 * an admin revokes it by) — never the token itself.
 */
import { z } from "zod";
import type { Env } from "../../shared/env";
import { roleSchema } from "../auth/caller";

export const TOKEN_AUDIT_PREFIX = "audit/tokens/";

/** The stored record; `id`, `issuedAt` (ms) and `issuedBy` are the names records have always used. */
export const tokenMintRecordSchema = z.object({
  id: z.string(),
  subject: z.string(),
  role: roleSchema,
  scopes: z.array(z.string()).optional(),
  repository: z.string().optional(),
  /** Absent on records written before admin minting. */
  reason: z.string().optional(),
  ttlSeconds: z.number().int().optional(),
  /** Seconds since the epoch. */
  expiresAt: z.number().int(),
  issuedAt: z.number().int(),
  issuedBy: z.string(),
  /** The `jti` of the service token that minted it; absent when a person did (or before lineage). */
  issuedByToken: z.string().optional(),
});
export type TokenMintRecord = z.infer<typeof tokenMintRecordSchema>;

/** A mint as `GET /v1/audit` lists it: the trail's `actor` and `at` (ms), the token's `jti`. */
export const tokenMintAuditSchema = tokenMintRecordSchema
  .omit({ id: true, issuedAt: true, issuedBy: true })
  .extend({ jti: z.string(), actor: z.string(), at: z.number().int() });
export type TokenMintAudit = z.infer<typeof tokenMintAuditSchema>;

export async function recordTokenMint(env: Env, record: TokenMintRecord): Promise<void> {
  await env.RECEIPTS.put(
    `${TOKEN_AUDIT_PREFIX}${record.issuedAt}-${record.id}.json`,
    JSON.stringify(record),
    { httpMetadata: { contentType: "application/json" } },
  );
}

/** A stored record as an audit entry, or null when the object is not one. */
export function tokenMintEntry(json: unknown): TokenMintAudit | null {
  const parsed = tokenMintRecordSchema.safeParse(json);
  if (!parsed.success) return null;
  const { id, issuedAt, issuedBy, ...rest } = parsed.data;
  return { ...rest, jti: id, actor: issuedBy, at: issuedAt };
}
