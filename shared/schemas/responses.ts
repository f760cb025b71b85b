/**
 * Response bodies of the routes that have no domain schema of their own (docs/api.md, "Routes"). The routes
 * answer with them and the CLI's client parses with them, so neither side restates the shape.
 */
import { z } from "zod";
import { holdOutcomeSchema } from "./hold";
import { lockStateSchema, releaseOutcomeSchema } from "./lock";
import { repositoryRefSchema } from "./repository";

export const healthSchema = z.object({ ok: z.literal(true), service: z.string() });

export const scopeSummarySchema = z.object({
  /** The repository the scope belongs to: its id, and its configured name (`#<id>` if no longer configured). */
  repository: repositoryRefSchema,
  environment: z.string(),
  scope: z.string(),
  entries: z.number(),
  uploadedAt: z.number(),
});
export type ScopeSummary = z.infer<typeof scopeSummarySchema>;

export const scopeListSchema = z.object({ scopes: z.array(scopeSummarySchema) });
export type ScopeList = z.infer<typeof scopeListSchema>;

export const lockListSchema = z.object({ locks: z.array(lockStateSchema) });
export type LockList = z.infer<typeof lockListSchema>;

export const forceReleaseBodySchema = z.object({ reason: z.string().trim().min(1).max(500) });
export type ForceReleaseBody = z.infer<typeof forceReleaseBodySchema>;

// `lock` is absent when the release happened but reading the lock back failed (docs/design.md, "Audit before acting").
export const forceReleaseResultSchema = releaseOutcomeSchema.extend({ lock: lockStateSchema.optional() });
export type ForceReleaseResult = z.infer<typeof forceReleaseResultSchema>;

/** POST and DELETE /v1/locks/{key}/hold: what was set or lifted, and the lock as it is now. */
export const holdResultSchema = holdOutcomeSchema.extend({ lock: lockStateSchema });
export type HoldResult = z.infer<typeof holdResultSchema>;
