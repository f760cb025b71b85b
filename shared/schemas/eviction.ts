/**
 * An eviction (docs/design.md, "Evicting stale scopes"): a write past a list's cap removed a stale
 * scope's entries to make room. Recorded in the evicted scope's receipt and in the audit trail.
 */
import { z } from "zod";

export const evictionReasonSchema = z.enum(["closed", "idle"]);

/** What the evicted scope's receipt keeps (`Receipt.evictions`). */
export const evictionNoteSchema = z.object({
  /** The run whose write needed the room. */
  runId: z.string(),
  /** The shared object and the op whose list the entries were on. */
  object: z.string(),
  op: z.string(),
  /** Which of the op's lists on the object, when it has several (a bucket's CORS rule: `rule B`). */
  list: z.string().optional(),
  keys: z.array(z.string()),
  reason: evictionReasonSchema,
  /** For `idle`: whole days since the scope's last run. */
  idleDays: z.int().nonnegative().optional(),
  at: z.int(),
});
export type EvictionNote = z.infer<typeof evictionNoteSchema>;

/** The audit trail's record (GET /v1/audit, kind `eviction`). */
export const evictionAuditSchema = evictionNoteSchema.extend({
  /** Who evicted: the evicting run, as `run <id>`. */
  actor: z.string(),
  repository: z.object({ id: z.int(), name: z.string() }),
  environment: z.string(),
  scope: z.string(),
  /**
   * False when the receipt was not written: its write failed, or the scope's lease was lost after
   * the provider write (the entries were removed all the same; another holder may have the scope).
   */
  receiptUpdated: z.boolean(),
});
export type EvictionAudit = z.infer<typeof evictionAuditSchema>;
