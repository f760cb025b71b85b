/**
 * How a lease ended, as far as a later call needs it, kept in the object's meta (docs/storage.md).
 *
 * A take-over (docs/design.md, "Lease protocol"): the lease an expiry ended, kept until the next
 * grant, and the `lock-taken-over` notice that grant sends (docs/operations.md).
 * In production the alarm frees an expired lease and the lock-delay (or an admin's hold) keeps the
 * lock free for a while, so the grant that follows, to a waiter or a newcomer, is where the
 * take-over is told. A grant consumes it, whoever it goes to. The notice is sent after the grant
 * is written, in the background, through the transport the object was built with: a failed send
 * never touches the grant.
 */
import { z } from "zod";
import type { LeaseGrant } from "../shared/schemas/lock";
import type { LeaseForceReleased, LeaseRow } from "./lease-rules";
import type { LeaseStore } from "./lease-store";

const expiredLeaseSchema = z.object({
  holder: z.string(),
  token: z.number().int(),
  expiresAt: z.number(),
});

/** Who held the lease an expiry ended: what the `lock-taken-over` notice names. */
export type ExpiredLease = z.infer<typeof expiredLeaseSchema>;

/** A notice to operators, as the notifications queue takes it (its transport is the Worker's). */
export interface LockNotice {
  id: string;
  kind: "lock-taken-over";
  at: number;
  summary: string;
  subject: Record<string, string | number>;
}

export function rememberExpired(store: LeaseStore, lease: LeaseRow): void {
  const { holder, token, expiresAt } = lease;
  store.setMeta("expired_lease", JSON.stringify({ holder, token, expiresAt }));
}

/** The remembered expired lease, forgotten as it is read (one notice per expiry). */
export function takeExpired(store: LeaseStore): ExpiredLease | null {
  const stored = store.meta("expired_lease");
  if (stored === null) return null;
  store.deleteMeta("expired_lease");
  try {
    const parsed = expiredLeaseSchema.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The notice for a grant that took over `previous`'s lease. */
export function takeoverNotice(
  key: string,
  previous: ExpiredLease,
  grant: LeaseGrant,
  now: number,
): LockNotice {
  return {
    // One per grant: a receiver drops a repeat delivery of the same takeover.
    id: `lock-taken-over:${key}:${grant.token}`,
    kind: "lock-taken-over",
    at: now,
    summary: `${key} was taken over by ${grant.holder} after the lease of ${previous.holder} expired`,
    subject: {
      lock: key,
      previousHolder: previous.holder,
      previousToken: previous.token,
      expiredAt: previous.expiresAt,
      holder: grant.holder,
      token: grant.token,
    },
  };
}

/*
 * A force-release ("Lease protocol": forceRelease): the last live lease an admin force-released,
 * so the holder's next renewal or fenced call is refused naming who released it and why. The
 * history has both too, but only its last 50 transitions, which the next holder's renewals push
 * out within minutes; this one entry stays until the next force-release replaces it. It is matched
 * by holder and token, so it speaks only to that lease.
 */

const forceReleasedSchema = z.object({
  holder: z.string(),
  token: z.number().int(),
  by: z.string(),
  reason: z.string(),
  at: z.number().int(),
});

export function rememberForceRelease(
  store: LeaseStore,
  lease: LeaseRow,
  by: { actor: string; reason: string; at: number },
): void {
  const record: LeaseForceReleased = {
    holder: lease.holder,
    token: lease.token,
    by: by.actor,
    reason: by.reason,
    at: by.at,
  };
  store.setMeta("force_released", JSON.stringify(record));
}

/** The remembered force-release (validated: a stored row is a trust boundary too), or null. */
export function lastForceRelease(store: LeaseStore): LeaseForceReleased | null {
  const stored = store.meta("force_released");
  if (stored === null) return null;
  try {
    const parsed = forceReleasedSchema.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
