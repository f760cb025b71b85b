/**
 * The last live lease an admin force-released, kept in the object's meta (docs/storage.md) so the
 * holder's next renewal or fenced call is refused naming who released it and why (docs/design.md,
 * "Lease protocol": forceRelease). The history has both too, but only its last 50 transitions,
 * which the next holder's renewals push out within minutes; this one entry stays until the next
 * force-release replaces it. It is matched by holder and token, so it speaks only to that lease.
 */
import { z } from "zod";
import type { LeaseForceReleased, LeaseRow } from "./lease-rules";
import type { LeaseStore } from "./lease-store";

const META_KEY = "force_released";

const storedSchema = z.object({
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
  store.setMeta(META_KEY, JSON.stringify(record));
}

/** The remembered force-release (validated: a stored row is a trust boundary too), or null. */
export function lastForceRelease(store: LeaseStore): LeaseForceReleased | null {
  const stored = store.meta(META_KEY);
  if (stored === null) return null;
  try {
    const parsed = storedSchema.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
