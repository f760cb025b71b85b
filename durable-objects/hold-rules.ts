/**
 * Pure hold decisions (docs/design.md, "Lease protocol: holds"). No `this`, no I/O, no clock: `now`
 * is passed in. A hold only blocks grants: the lock object folds its end into the time before
 * which nobody is granted the lock, like a lock-delay an admin sets.
 */
import { fail, type Result } from "../shared/errors";
import type { HoldView } from "../shared/schemas/hold";

export interface HoldRow extends HoldView {
  /** Its row id: an expiry's audit record is keyed by it (shared/schemas/hold.ts). */
  id: number;
}

/** In force at `now`: the hold ends at `until` by itself. */
export function inForce(hold: HoldRow, now: number): boolean {
  return now < hold.until;
}

export function holdView({ reason, by, since, until }: HoldRow): HoldView {
  return { reason, by, since, until };
}

/**
 * LOCK_HELD for a run that needs a held lock: names the hold (why, who, until when), says what to
 * do, and how long to wait (`retryAfterSeconds`, sent as `Retry-After`).
 */
export function holdRefusal(
  hold: HoldRow,
  at: { key: string; now: number; leaseEnd: number; position: number | undefined },
): Result<never> {
  const { key, now, position } = at;
  const grantable = Math.max(hold.until, at.leaseEnd);
  const until = new Date(hold.until).toISOString();
  return fail(
    "LOCK_HELD",
    // The reason is the admin's sentence; its own final full stop is not doubled.
    `${key} is on hold until ${until}, set by ${hold.by}: ${hold.reason.replace(/[.\s]+$/, "")}. ` +
      `Runs that need it are refused until then: retry after ${new Date(grantable).toISOString()}, or an admin can lift it ` +
      `with \`sponson unhold ${key}\`.`,
    {
      lock: key,
      holder: { hold: { reason: hold.reason, by: hold.by, until: hold.until } },
      expiresAt: hold.until,
      retryAfterSeconds: Math.max(1, Math.ceil((grantable - now) / 1000)),
      ...(position === undefined ? {} : { position }),
    },
  );
}
