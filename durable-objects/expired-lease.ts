/**
 * The lease an expiry ended, kept in the object's meta until the next grant (docs/design.md,
 * "Lease protocol"): in production the alarm frees an expired lease and the lock-delay (or an
 * admin's hold) keeps the lock free for a while, so the grant that follows, to a waiter or a
 * newcomer, is where the takeover is told. A grant consumes it, whoever it goes to.
 */
import { z } from "zod";
import type { LeaseRow } from "./lease-rules";
import type { LeaseStore } from "./lease-store";

const META_KEY = "expired_lease";

const expiredLeaseSchema = z.object({
  holder: z.string(),
  token: z.number().int(),
  expiresAt: z.number(),
});

/** Who held the lease an expiry ended: what the `lock-taken-over` notice names. */
export type ExpiredLease = z.infer<typeof expiredLeaseSchema>;

export function rememberExpired(store: LeaseStore, lease: LeaseRow): void {
  const { holder, token, expiresAt } = lease;
  store.setMeta(META_KEY, JSON.stringify({ holder, token, expiresAt }));
}

/** The remembered expired lease, forgotten as it is read (one notice per expiry). */
export function takeExpired(store: LeaseStore): ExpiredLease | null {
  const stored = store.meta(META_KEY);
  if (stored === null) return null;
  store.deleteMeta(META_KEY);
  try {
    const parsed = expiredLeaseSchema.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
