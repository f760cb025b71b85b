/**
 * The scope lock's role (docs/design.md, "Run algorithm"): a lease whose grant hands over the
 * receipt etag the previous holder saved with, and whose release hands its own receipt etag on.
 */
import { grantOf, plainAsk } from "./acquire-loop";
import { type Granted, Lease } from "./lease";
import { type LeaseOptions, type LeaseSettings, leaseOptions } from "./lease-options";
import type { ScopeLeaseTarget } from "./lock-target";
import { acquireGivingBack } from "./lost-answer";

export class ScopeLease extends Lease {
  /**
   * The receipt etag the previous holder saved and released with, when the object vouches for it
   * (LeaseGrant.receiptEtag); null when it does not.
   */
  readonly receiptEtag: string | null;
  /**
   * The lock still keeps intents a holder of 0.1.x left there (LeaseGrant.legacyIntents; upgrading
   * only, deleted in 0.4.0): a run refuses such a lease (docs/upgrading.md).
   */
  readonly legacyIntents: boolean;

  /** What this role may call: the lease, and the drain of what 0.1.x kept (no parent lock's call). */
  declare readonly target: ScopeLeaseTarget;

  private constructor(target: ScopeLeaseTarget, holder: string, granted: Granted, s: LeaseSettings) {
    super(target, holder, granted, s);
    const { grant } = granted;
    this.receiptEtag = grant.receiptEtag ?? null;
    this.legacyIntents = grant.legacyIntents === true;
  }

  /**
   * Takes the lease or throws LOCK_HELD (SponsonError) naming the holder and until when. A grant
   * handed over after waiting is claimed right away: the object lets an unclaimed grant lapse to
   * the next waiter, so a caller that has gone never stalls the lock.
   */
  static async acquire(
    target: ScopeLeaseTarget,
    holder: string,
    opts: LeaseOptions | LeaseSettings,
  ): Promise<ScopeLease> {
    const s = leaseOptions(opts);
    const granted = grantOf(await acquireGivingBack(target, holder, s, plainAsk(target)));
    const lease = new ScopeLease(target, holder, granted, s);
    await lease.start(granted.before);
    return lease;
  }

  /**
   * Idempotent; retried with backoff. `receiptEtag` hands the etag of this holder's last successful
   * receipt save to the next holder (docs/design.md, "Run algorithm").
   */
  override async release(receiptEtag: string | null = null): Promise<void> {
    await this.releaseWith(receiptEtag === null ? {} : { receiptEtag });
  }
}
