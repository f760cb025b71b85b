/**
 * Holds (docs/design.md, "Lease protocol: holds"): an admin keeps a lock from being granted, with a
 * reason, until a time. The shapes the lock object answers, the API takes and the audit keeps.
 */
import { z } from "zod";

/** The longest hold one request may set (30 days); a longer freeze is set again. */
export const MAX_HOLD_SECONDS = 30 * 24 * 3600;
/** The shortest (a minute): a hold shorter than a run's TTL would mostly be noise. */
export const MIN_HOLD_SECONDS = 60;
export const MAX_HOLD_REASON_LENGTH = 500;

/** A reason a person reads in a refusal: one line of printable text. */
export const holdReasonSchema = z
  .string()
  .trim()
  .min(1)
  .max(MAX_HOLD_REASON_LENGTH)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  .regex(/^[^\u0000-\u001f\u007f]*$/, "one line of text, no control characters");

/** A hold in force, as the lock shows it: why, who set it (the admin's subject), since and until when (ms). */
export const holdViewSchema = z.object({
  reason: z.string(),
  by: z.string(),
  since: z.number().int(),
  until: z.number().int(),
});
export type HoldView = z.infer<typeof holdViewSchema>;

/** `POST /v1/locks/{key}/hold`. */
export const holdBodySchema = z.strictObject({
  reason: holdReasonSchema,
  ttlSeconds: z.number().int().min(MIN_HOLD_SECONDS).max(MAX_HOLD_SECONDS),
});
export type HoldBody = z.infer<typeof holdBodySchema>;

/**
 * What setting or lifting a hold did: `hold` is the hold now in force (null after a lift),
 * `previous` the one it replaced or lifted (null if none was in force); `at` the object's clock.
 */
export const holdOutcomeSchema = z.object({
  hold: holdViewSchema.nullable(),
  previous: holdViewSchema.nullable(),
  at: z.number().int(),
});
export type HoldOutcome = z.infer<typeof holdOutcomeSchema>;

/** `LOCK_HELD`'s `detail.holder` when a hold is why (docs/design.md). */
export const holdHolderSchema = z.object({
  hold: z.object({ reason: z.string(), by: z.string(), until: z.number().int() }),
});

/** One audit record (docs/storage.md, "Audit trail"): set and lift by an admin, expire by the lock. */
export const holdAuditSchema = z.object({
  key: z.string(),
  action: z.enum(["set", "lift", "expire"]),
  /** The admin who set or lifted it; null for an expiry (nobody acted). */
  actor: z.string().nullable(),
  /** The hold's reason (a lift: the lifted hold's; empty when none was in force). */
  reason: z.string(),
  /** The hold set, lifted or expired (null: a lift found none). */
  hold: holdViewSchema.nullable(),
  /** A set that replaced a hold in force names it. */
  replaced: holdViewSchema.nullable().optional(),
  at: z.number().int(),
});
export type HoldAudit = z.infer<typeof holdAuditSchema>;

export const HOLD_AUDIT_PREFIX = "audit/holds/";

/**
 * An expiry's record has a key of its own making: the lock retries a failed put, and a retry of a
 * put that did land writes the same record again instead of a second one.
 */
export function holdExpiryAuditKey(lockKey: string, holdId: number, until: number): string {
  return `${HOLD_AUDIT_PREFIX}${until}-expired-${holdId}-${encodeURIComponent(lockKey)}.json`;
}

export function holdAuditKey(at: number): string {
  return `${HOLD_AUDIT_PREFIX}${at}-${crypto.randomUUID()}.json`;
}
