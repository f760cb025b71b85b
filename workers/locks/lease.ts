/**
 * The client side of a lease (docs/design.md, "Lease protocol"): renew every TTL/3, keep the holder's own
 * deadline and stop before the server could hand the lock to someone else, release in `finally` with retries.
 */

import { type Clock, systemClock } from "../../shared/clock";
import { type Result, SponsonError } from "../../shared/errors";
import { DEFAULT_WAIT_TIMEOUT_MS } from "../../shared/lease-defaults";
import type { LeaseGrant } from "../../shared/schemas/lock";
import type { Locator, OwnedItem, OwnerChange, OwnershipView } from "../../shared/schemas/ownership";
import type { LockTarget } from "./lock-target";

export interface LeaseOptions {
  ttlMs: number;
  wait?: boolean;
  waitTimeoutMs?: number;
  /** How long before the server-side expiry the holder stops trusting its lease. */
  safetyMarginMs?: number;
  clock?: Clock;
  releaseAttempts?: number;
  onWarning?: (message: string) => void;
}

export const RELEASE_ATTEMPTS = 5;
const RELEASE_BACKOFF_MS = 100;

export function defaultSafetyMarginMs(ttlMs: number): number {
  return Math.min(Math.max(Math.floor(ttlMs / 10), 1), 5_000);
}

export class Lease {
  readonly target: LockTarget;
  readonly holder: string;
  readonly token: number;
  readonly #ttlMs: number;
  readonly #marginMs: number;
  readonly #clock: Clock;
  readonly #attempts: number;
  readonly #warn: (message: string) => void;
  #deadline: number;
  #expiresAt: number;
  #timer: unknown = null;
  #lost: SponsonError | null = null;
  #released = false;

  private constructor(
    target: LockTarget,
    holder: string,
    grant: LeaseGrant,
    deadline: number,
    opts: LeaseOptions,
  ) {
    this.target = target;
    this.holder = holder;
    this.token = grant.token;
    this.#ttlMs = opts.ttlMs;
    this.#marginMs = opts.safetyMarginMs ?? defaultSafetyMarginMs(opts.ttlMs);
    this.#clock = opts.clock ?? systemClock;
    this.#attempts = opts.releaseAttempts ?? RELEASE_ATTEMPTS;
    this.#warn = opts.onWarning ?? ((m) => console.warn(m));
    this.#deadline = deadline;
    this.#expiresAt = grant.expiresAt;
  }

  /** Takes the lease or throws LOCK_HELD (SponsonError) naming the holder and until when. */
  static async acquire(target: LockTarget, holder: string, opts: LeaseOptions): Promise<Lease> {
    const clock = opts.clock ?? systemClock;
    const margin = opts.safetyMarginMs ?? defaultSafetyMarginMs(opts.ttlMs);
    // Measured before the call: the server's expiry can only be later than this plus the TTL.
    const before = clock.now();
    const result = await target.acquire(
      holder,
      opts.ttlMs,
      opts.wait ?? false,
      opts.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS,
    );
    if (!result.ok) throw SponsonError.fromInfo(result.error);
    const lease = new Lease(target, holder, result.value, before + opts.ttlMs - margin, opts);
    // After a long wait the deadline measured before the call may already be spent: a renewal
    // right away gives a fresh one, measured the same way.
    if (clock.now() - before > opts.ttlMs / 3) await lease.renew();
    lease.#schedule();
    return lease;
  }

  get deadline(): number {
    return this.#deadline;
  }

  get expiresAt(): number {
    return this.#expiresAt;
  }

  /** Throws LOCK_LOST if the deadline passed or a renewal was refused; no I/O. */
  assertHeld(): void {
    if (this.#lost) throw this.#lost;
    if (this.#released) throw this.#lostError("the lease was already released");
    if (this.#clock.now() >= this.#deadline) {
      this.#lost = this.#lostError("no renewal succeeded before the holder's deadline");
      this.#stop();
      throw this.#lost;
    }
  }

  /**
   * The fencing check before a provider write: a renewal that must succeed (docs/design.md, "Lease
   * protocol").
   */
  async check(): Promise<void> {
    this.assertHeld();
    await this.renew();
    this.assertHeld();
  }

  /** The object's ownership of `items`, read as the holder (throws LOCK_LOST when no longer held). */
  async owners(items: OwnedItem[]): Promise<OwnershipView> {
    this.assertHeld();
    return this.#fenced(await this.target.owners(this.holder, this.token, items));
  }

  /** Changes ownership, accepted by the object only with this lease's current token. */
  async changeOwners(
    changes: OwnerChange[],
    options: { rebuilt?: boolean; locator?: Locator } = {},
  ): Promise<OwnershipView> {
    this.assertHeld();
    return this.#fenced(await this.target.changeOwners(this.holder, this.token, changes, options));
  }

  #fenced(result: Result<OwnershipView>): OwnershipView {
    if (result.ok) return result.value;
    if (result.error.code === "LOCK_LOST") {
      this.#lost = this.#lostError(result.error.message);
      this.#stop();
      throw this.#lost;
    }
    throw SponsonError.fromInfo(result.error);
  }

  async renew(): Promise<void> {
    if (this.#lost || this.#released) return;
    const before = this.#clock.now();
    let result: Awaited<ReturnType<LockTarget["renew"]>>;
    try {
      result = await this.target.renew(this.holder, this.token);
    } catch {
      // Transport trouble: keep the old deadline; the next tick tries again.
      return;
    }
    if (result.ok) {
      this.#deadline = Math.max(this.#deadline, before + this.#ttlMs - this.#marginMs);
      this.#expiresAt = result.value.expiresAt;
    } else if (result.error.code === "LOCK_LOST") {
      this.#lost = this.#lostError(result.error.message);
      this.#stop();
    }
  }

  /** Idempotent; retried with backoff; a final failure warns with the key and until when. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    this.#stop();
    for (let attempt = 1; attempt <= this.#attempts; attempt++) {
      try {
        const result = await this.target.release(this.holder, this.token);
        if (result.ok) return;
      } catch {
        // fall through to the backoff
      }
      if (attempt < this.#attempts) await this.#clock.sleep(RELEASE_BACKOFF_MS * 2 ** (attempt - 1));
    }
    const until = new Date(this.#expiresAt).toISOString();
    const what = this.target.identity ? `${this.target.key} (${this.target.identity})` : this.target.key;
    this.#warn(`could not release ${what}; it stays held by ${this.holder} until ${until}`);
  }

  #schedule(): void {
    if (this.#lost || this.#released) return;
    this.#timer = this.#clock.setTimeout(() => {
      void this.renew().finally(() => this.#schedule());
    }, this.#ttlMs / 3);
  }

  #stop(): void {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  #lostError(reason: string): SponsonError {
    return new SponsonError("LOCK_LOST", `lease on ${this.target.key} lost: ${reason}`, {
      lock: this.target.key,
      parent: this.target.identity,
    });
  }
}
