/**
 * Adoptions in the audit trail (docs/design.md, "Adopting existing entries"; docs/storage.md,
 * "Audit trail"): an apply changes which scope may remove which entries, and may remove closed pull
 * requests' entries, so it is audited before it acts (./audit-intent.ts): the intent — who, which
 * object and list, which patterns — before anything is sent, then its completion with each entry
 * it adopted, removed or failed on. Never the GitHub token. A dry run changes nothing: no record.
 */
import { z } from "zod";
import type { Env } from "../../shared/env";
import { adoptionOutcomeSchema } from "../../shared/schemas/adoption";
import { auditLifecycleSchema, writeCompletion, writeIntent } from "./audit-intent";

export const ADOPTION_AUDIT_PREFIX = "audit/adoptions/";

export const adoptionAuditSchema = z
  .object({
    runId: z.string(),
    actor: z.string(),
    repository: z.object({ id: z.number().int(), name: z.string() }),
    environment: z.string(),
    connection: z.string(),
    op: z.string(),
    parent: z.string(),
    patterns: z.array(z.string()),
    removeClosed: z.boolean(),
    /** The intent's time while `started`; the completion's once the outcome is known. */
    at: z.number().int(),
    /** What changed, per entry (absent until completed): adopted, removed, released or failed. */
    entries: z
      .array(
        z.object({
          key: z.string(),
          scope: z.string().nullable(),
          outcome: adoptionOutcomeSchema,
          errorCode: z.string().optional(),
        }),
      )
      .optional(),
  })
  .extend(auditLifecycleSchema.shape);
export type AdoptionAudit = z.input<typeof adoptionAuditSchema>;

/** Where the engine's adoption records its intent and completion (workers/engine/adoption/adopt.ts). */
export interface AdoptionAuditTrail {
  /** Throws AUDIT_UNAVAILABLE when the intent cannot be written: nothing is done then. */
  started(record: AdoptionAudit): Promise<void>;
  /** Replaces the intent; a failure is logged and the intent stays, listed as `started`. */
  finished(record: AdoptionAudit): Promise<void>;
}

/** The trail in R2: one object per adoption, its start time first so keys list in time order. */
export function adoptionAuditTrail(env: Env): AdoptionAuditTrail {
  let key: string | null = null;
  return {
    async started(record) {
      key = `${ADOPTION_AUDIT_PREFIX}${record.startedAt ?? record.at}-${record.runId}.json`;
      await writeIntent(env.RECEIPTS, key, record);
    },
    async finished(record) {
      if (key !== null) await writeCompletion(env.RECEIPTS, key, record);
    },
  };
}
