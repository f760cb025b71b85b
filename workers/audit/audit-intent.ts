/**
 * Destructive admin actions (force-release, orphan removal) are audited before they act
 * (docs/design.md, "Audit before acting"): the intent (who, what, why, when, an id) is put in R2
 * first, and a put that fails refuses the action, so nothing destructive ever happens unaudited.
 * After the action the same object is replaced by its completion, with the outcome. A completion
 * that cannot be written leaves the intent, which lists as `started` ("outcome not recorded"): the
 * trail then says something may have been done, never nothing.
 */
import { z } from "zod";
import { isSponsonError, SponsonError } from "../../shared/errors";

export const AUDIT_STATUSES = ["started", "done", "refused", "failed", "unknown"] as const;
export const auditStatusSchema = z.enum(AUDIT_STATUSES);
export type AuditStatus = z.infer<typeof auditStatusSchema>;

/**
 * What an intent-first record adds. Records written before intents were written after a
 * successful action: read back as `done`, with no id and no start time.
 */
export const auditLifecycleSchema = z.object({
  /** One per action: the intent and its completion share it (and the R2 key). */
  id: z.string().optional(),
  status: auditStatusSchema.default("done"),
  /** When the intent was written (ms); `at` is when the outcome was known. */
  startedAt: z.number().int().optional(),
  /** The stable code of a refusal or failure; never its message, which may quote a provider. */
  errorCode: z.string().optional(),
});
export type AuditLifecycle = z.input<typeof auditLifecycleSchema>;

const JSON_METADATA = { httpMetadata: { contentType: "application/json" } };

/** Puts the intent, or refuses the action (503 AUDIT_UNAVAILABLE, retriable) when it cannot. */
export async function writeIntent(bucket: R2Bucket, key: string, intent: object): Promise<void> {
  try {
    await bucket.put(key, JSON.stringify(intent), JSON_METADATA);
  } catch (err) {
    console.error(JSON.stringify({ event: "audit-intent-failed", key, error: errorName(err) }));
    throw new SponsonError(
      "AUDIT_UNAVAILABLE",
      "the audit trail could not be written, so nothing was done; try again",
    );
  }
}

/**
 * Replaces the intent with its completion. A failure is logged, not thrown: the action has
 * happened (or been refused) and its answer must say so; the intent stays listed as `started`.
 */
export async function writeCompletion(bucket: R2Bucket, key: string, record: object): Promise<boolean> {
  try {
    await bucket.put(key, JSON.stringify(record), JSON_METADATA);
    return true;
  } catch (err) {
    console.error(JSON.stringify({ event: "audit-completion-failed", key, error: errorName(err) }));
    return false;
  }
}

/** Refusals decided before anything was changed; the lease and overload codes change nothing either. */
const REFUSALS = new Set([
  "VALIDATION",
  "FORBIDDEN",
  "NOT_FOUND",
  "CONCURRENT_MODIFICATION",
  "LOCK_HELD",
  "LOCK_UNAVAILABLE",
]);

/**
 * How an action that threw ended: `refused` (decided, nothing changed), `unknown` (a write may
 * have landed: a lost answer, a lost lease, or an error nobody expected), else `failed`.
 */
export function outcomeOfError(err: unknown): { status: AuditStatus; errorCode?: string } {
  if (!isSponsonError(err)) return { status: "unknown" };
  if (err.outcome === "unknown") return { status: "unknown", errorCode: err.code };
  return { status: REFUSALS.has(err.code) ? "refused" : "failed", errorCode: err.code };
}

function errorName(err: unknown): string {
  return err instanceof Error ? err.name : "unknown";
}
