/**
 * The client side of a lease, the session both lock roles share (docs/design.md, "Lease protocol"):
 * its token, renewal every TTL/3, the holder's own deadline (it stops before the server could hand
 * the lock to someone else), release in `finally` with retries, and abandon. What each kind of lock
 * adds is in its role: scope-lock.ts and parent-lock.ts; taking the lease is acquire-loop.ts.
 */

import { type ErrorInfo, type Result, SponsonError } from "../../shared/errors";
import { LOCK_DELAY_MS } from "../../shared/lease-defaults";
import type { FillLevel } from "../../shared/schemas/fill-level";
import { type ForceReleased, forceReleasedSchema, type LeaseGrant } from "../../shared/schemas/lock";
import { noteAbandoned } from "./ask-guard";
import type { LeaseSettings } from "./lease-options";
import type { LeaseTarget } from "./lock-target";

export const RELEASE_BACKOFF_MS = 100;

/** A grant, and the clock read just before the call that granted (or claimed) it. */
export interface Granted {
  grant: LeaseGrant;
  before: number;
}

/** What a scope lock's release hands to the next holder (docs/design.md, "Run algorithm"). */
export interface HandOver {
  receiptEtag?: string;
  /** A parent lock's: the capped lists' fill as this holder's writes left them. */
  fills?: FillLevel[];
  /** A parent lock's: a write sent under the lease may still land (ParentLease.writeMayLand). */
  quiet?: true;
}

export class Lease {
  readonly target: LeaseTarget;
  readonly holder: string;
  readonly token: number;
  protected readonly settings: LeaseSettings;
  #deadline: number;
  #expiresAt: number;
  /** Past this no renewal is made (LeaseOptions.maxHoldMs). */
  readonly #holdUntil: number;
  #timer: unknown = null;
  #lost: SponsonError | null = null;
  #released = false;

  /** A granted lease. */
  protected constructor(target: LeaseTarget, holder: string, { grant, before }: Granted, s: LeaseSettings) {
    this.target = target;
    this.holder = holder;
    this.token = grant.token;
    this.settings = s;
    const deadline = before + s.ttlMs - s.safetyMarginMs;
    this.#holdUntil = s.maxHoldMs === undefined ? Infinity : before + s.maxHoldMs - s.safetyMarginMs;
    this.#deadline = Math.min(deadline, this.#holdUntil);
    this.#expiresAt = grant.expiresAt;
  }

  /**
   * Starts renewing. After a long wait the deadline measured before the call may already be
   * spent: a renewal right away gives a fresh one, measured the same way.
   */
  protected async start(before: number): Promise<void> {
    if (this.settings.clock.now() - before > this.settings.ttlMs / 3) await this.renew();
    this.#schedule();
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
    const now = this.settings.clock.now();
    if (now >= this.#deadline) {
      this.#lost = this.#lostError(
        now >= this.#holdUntil
          ? "the critical section reached its maximum length"
          : "no renewal succeeded before the holder's deadline",
      );
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

  async renew(): Promise<void> {
    if (this.#lost || this.#released) return;
    const before = this.settings.clock.now();
    // The critical section's maximum length: no renewal keeps it alive past that.
    if (before >= this.#holdUntil) {
      this.#lose("the critical section reached its maximum length");
      return;
    }
    let result: Result<LeaseGrant>;
    try {
      result = await this.target.renew({ holder: this.holder, token: this.token });
    } catch {
      // Transport trouble (an overloaded or restarting object too): keep the old deadline; the
      // next tick tries again, and the deadline alone decides when the lease is lost.
      return;
    }
    if (result.ok) this.renewed(before, result.value.expiresAt);
    else if (result.error.code === "LOCK_LOST") this.#loseTo(result.error);
  }

  /** A renewal measured from `before` (the clock read just before its call) succeeded. */
  protected renewed(before: number, expiresAt: number): void {
    const s = this.settings;
    this.#deadline = Math.min(Math.max(this.#deadline, before + s.ttlMs - s.safetyMarginMs), this.#holdUntil);
    this.#expiresAt = expiresAt;
  }

  /** A fenced call's answer: its value, or LOCK_LOST (the lease is then lost) or the error it names. */
  protected fenced<T>(result: Result<T>): T {
    if (result.ok) return result.value;
    if (result.error.code === "LOCK_LOST") {
      this.#loseTo(result.error);
      throw this.#lost;
    }
    throw SponsonError.fromInfo(result.error);
  }

  /**
   * Gives the lease up without releasing it: no more renewals, no release call. After a write
   * whose outcome is unknown (it may still land), the lease must end by expiry, not by a release,
   * so the lock-delay after its expiry keeps the next holder from reading before it lands. Nor is
   * it asked for again by this holder meanwhile (ask-guard.ts): that would be a re-acquire of this
   * very lease, ended by a plain release. It may be live up to a TTL after the last answer of the
   * object, plus a renewal's flight, which the lock-delay (at least a request's timeout) covers.
   */
  abandon(reason: string): void {
    if (this.#released) return;
    this.#released = true;
    this.#lost ??= this.#lostError(reason);
    this.#stop();
    const { clock, ttlMs, lockDelayMs } = this.settings;
    noteAbandoned(this.target.key, this.holder, clock.now() + ttlMs + (lockDelayMs ?? LOCK_DELAY_MS));
  }

  /** Idempotent; retried with backoff; a final failure warns with the key and until when. */
  async release(): Promise<void> {
    await this.releaseWith({});
  }

  /**
   * Releases, answering whether the object said the lease was live when the release arrived
   * (`released`, not `released-expired`, `stale-token` or `not-held`). False too when no attempt
   * was answered, or the lease was already released or abandoned: nobody vouched for it then.
   */
  protected async releaseWith(handOver: HandOver): Promise<boolean> {
    if (this.#released) return false;
    this.#released = true;
    this.#stop();
    const { releaseAttempts: attempts, clock } = this.settings;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const result = await this.target.release({ holder: this.holder, token: this.token, ...handOver });
        // A retry after an attempt whose answer was lost may hear `not-held` for a release that
        // landed: "not live" then is only too careful, never wrong the other way.
        if (result.ok) return result.value.released && result.value.reason === "released";
      } catch {
        // fall through to the backoff
      }
      if (attempt < attempts) await clock.sleep(RELEASE_BACKOFF_MS * 2 ** (attempt - 1));
    }
    const until = new Date(this.#expiresAt).toISOString();
    const what = this.target.identity ? `${this.target.key} (${this.target.identity})` : this.target.key;
    this.settings.onWarning(`could not release ${what}; it stays held by ${this.holder} until ${until}`);
    return false;
  }

  #schedule(): void {
    if (this.#lost || this.#released) return;
    this.#timer = this.settings.clock.setTimeout(() => {
      void this.renew().finally(() => this.#schedule());
    }, this.settings.ttlMs / 3);
  }

  #stop(): void {
    if (this.#timer !== null) this.settings.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  #lose(reason: string): void {
    this.#lost = this.#lostError(reason);
    this.#stop();
  }

  /**
   * The lock refused the lease (LOCK_LOST): the object's words, or, when an admin force-released
   * it, who and why as a typed fact (`detail.forceReleased`), which the run's answer carries.
   */
  #loseTo(refusal: ErrorInfo): void {
    const forced = forceReleasedSchema.safeParse(refusal.detail?.forceReleased);
    this.#lost = forced.success
      ? this.#lostError(`force-released by ${forced.data.by}: ${forced.data.reason}`, forced.data)
      : this.#lostError(refusal.message);
    this.#stop();
  }

  #lostError(reason: string, forceReleased?: ForceReleased): SponsonError {
    return new SponsonError("LOCK_LOST", `lease on ${this.target.key} lost: ${reason}`, {
      lock: this.target.key,
      parent: this.target.identity,
      ...(forceReleased ? { forceReleased } : {}),
    });
  }
}
