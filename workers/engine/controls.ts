/**
 * The protocol's mechanisms a test may switch off, one by one, to show what each prevents: the
 * control case of a concurrency claim runs the same scenario with the mechanism off, where the loss
 * shows (CONTRIBUTING.md, "Running the suites"). Production runs with every one on: the wiring
 * (workers/wiring/wire.ts) passes PRODUCTION_CONTROLS itself, and only a test's EngineOverrides,
 * which no configuration can set, passes anything else. Each mechanism's rule is the docs/design.md
 * section named on its field.
 */

export interface EngineControls {
  /** An item on a shared object is written under the object's parent lease ("Lease protocol"). */
  readonly parentLocks: boolean;
  /** The parent lock keeps each shared entry's owners ("Ownership of shared entries"). */
  readonly ownership: boolean;
  /**
   * A lock-delay after a parent lease's expiry and a lease check after each provider write
   * ("Fencing around a write").
   */
  readonly fencing: boolean;
  /** A write that would take a list past its cap is refused before it is sent ("Lists at their cap"). */
  readonly listCaps: boolean;
  /**
   * The shares of a list are checked again under the parent lease ("A share of each list"); the
   * check from the plan, before any lock, stays either way.
   */
  readonly leaseQuota: boolean;
  /**
   * The parent lock's recent writes are merged over the read under the lease ("Providers that
   * forget a write").
   */
  readonly recentWrites: boolean;
}

/** Every mechanism on: what production wiring passes, and the base a test's overrides change. */
export const PRODUCTION_CONTROLS: EngineControls = Object.freeze({
  parentLocks: true,
  ownership: true,
  fencing: true,
  listCaps: true,
  leaseQuota: true,
  recentWrites: true,
});
