/**
 * Orphans: entries on a shared object that no scope owns and that were not there before the
 * service first looked at the list (those are foreign) — left behind by a lost receipt. The sweep
 * reports those that match an environment's policy; an admin removes one with a recorded reason.
 */
import { z } from "zod";

export const orphanSchema = z.object({
  /** The shared object (parent identity). */
  parent: z.string(),
  op: z.string(),
  key: z.string(),
  connection: z.string(),
  /** Environments whose policy admits the entry (where a scope could have put it). */
  environments: z.array(z.string()),
});
export type Orphan = z.infer<typeof orphanSchema>;

export const orphanListSchema = z.object({
  orphans: z.array(orphanSchema),
  /** Objects that could not be looked at, and why (no secret in them). */
  problems: z.array(z.string()),
});
export type OrphanList = z.infer<typeof orphanListSchema>;

export const orphanRemovalBodySchema = z.strictObject({
  parent: z.string().min(1).max(512),
  op: z.string().regex(/^[a-z0-9]+\.[A-Za-z0-9]+$/),
  key: z.string().min(1).max(2_000),
  reason: z.string().trim().min(1).max(500),
});
export type OrphanRemovalBody = z.infer<typeof orphanRemovalBodySchema>;

export const orphanRemovalSchema = orphanRemovalBodySchema.extend({
  actor: z.string(),
  at: z.number().int(),
  runId: z.string(),
  /** `removed` from the provider, or `already-gone` (nothing was sent). */
  outcome: z.enum(["removed", "already-gone"]),
});
export type OrphanRemoval = z.infer<typeof orphanRemovalSchema>;
