/**
 * An admin's orphan removal in the audit trail (docs/storage.md, "Audit trail"): its intent is
 * written before the removal takes the object's lease (workers/audit/audit-intent.ts) and replaced
 * by its completion; `outcome` (removed or already gone) is known only once it is done.
 */
import type { z } from "zod";
import { orphanRemovalSchema } from "../../shared/schemas/orphans";
import { auditLifecycleSchema } from "./audit-intent";

export const orphanRemovalAuditSchema = orphanRemovalSchema
  .extend({ outcome: orphanRemovalSchema.shape.outcome.optional() })
  .extend(auditLifecycleSchema.shape);
export type OrphanRemovalAudit = z.input<typeof orphanRemovalAuditSchema>;
