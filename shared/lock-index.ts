/**
 * The held-lock index (docs/storage.md): one small R2 object per held lock, written by that
 * lock's own object. It only says where to look; the lock objects remain the truth.
 */
export const HELD_INDEX_PREFIX = "locks/held/";

export function heldIndexKey(lockKey: string): string {
  return HELD_INDEX_PREFIX + encodeURIComponent(lockKey);
}

export function lockKeyFromIndex(objectKey: string): string {
  return decodeURIComponent(objectKey.slice(HELD_INDEX_PREFIX.length));
}

/**
 * The pending-intents index (docs/storage.md; upgrading only, deleted in 0.4.0): one R2 object per
 * scope lock that still keeps intents a holder of 0.1.x left there, written by that lock; the
 * upgrade lists it to drain those locks into their receipts (workers/upgrade/).
 */
export const LEGACY_INTENTS_INDEX_PREFIX = "locks/pending-intents/";

export function legacyIntentsIndexKey(lockKey: string): string {
  return LEGACY_INTENTS_INDEX_PREFIX + encodeURIComponent(lockKey);
}

export function lockKeyFromLegacyIndex(objectKey: string): string {
  return decodeURIComponent(objectKey.slice(LEGACY_INTENTS_INDEX_PREFIX.length));
}

/**
 * The owned-object index (docs/storage.md): one R2 object per parent lock that keeps ownership,
 * written once by that lock when its ownership is first built. The sweep's orphan search reads it.
 */
export const OWNED_INDEX_PREFIX = "locks/owned/";

export function ownedObjectKey(lockKey: string): string {
  return OWNED_INDEX_PREFIX + encodeURIComponent(lockKey);
}
