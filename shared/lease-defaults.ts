/**
 * Lease defaults, defined once: the Worker's config (workers/config/) falls back to them when a var is
 * unset, and the lock object uses the wait timeout for a waiting caller that names none.
 */
export const DEFAULT_LEASE_TTL_SECONDS = 30;
export const DEFAULT_WAIT_TIMEOUT_SECONDS = 120;
export const DEFAULT_WAIT_TIMEOUT_MS = DEFAULT_WAIT_TIMEOUT_SECONDS * 1000;
