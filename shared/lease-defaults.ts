/**
 * Lease defaults, defined once: the Worker's config (workers/config/) falls back to them when a var is
 * unset, and the lock object uses the wait timeout for a waiting caller that names none.
 */
export const DEFAULT_LEASE_TTL_SECONDS = 30;
export const DEFAULT_WAIT_TIMEOUT_SECONDS = 120;
export const DEFAULT_WAIT_TIMEOUT_MS = DEFAULT_WAIT_TIMEOUT_SECONDS * 1000;

/**
 * The longest one provider request may take (workers/adapters/http/provider-request.ts): every
 * request carries an AbortSignal at this or the lease deadline, whichever comes first.
 */
export const PROVIDER_REQUEST_TIMEOUT_MS = 10_000;

/**
 * Lock-delay (docs/design.md, "Lease protocol"): after a lease *expired* (its holder did not
 * release it), nobody else is granted the lock for this long, so a write its holder sent just
 * before its deadline has landed (or been dropped) before the next holder reads. At least the
 * provider request timeout.
 */
export const LOCK_DELAY_MS = PROVIDER_REQUEST_TIMEOUT_MS;
