/**
 * The client side of a lease (docs/design.md, "Lease protocol"): renew every TTL/3, keep the holder's own
 * deadline and stop before the server could hand the lock to someone else, release in `finally` with retries.
 */

import { type Clock, systemClock } from "../../shared/clock";
import { ok, type Result, SponsonError } from "../../shared/errors";
import { DEFAULT_WAIT_TIMEOUT_MS } from "../../shared/lease-defaults";
import type { CombinedAnswer, CombineReport, QueuedChange, QueuedWaiter } from "../../shared/schemas/combine";
import type { LeaseGrant } from "../../shared/schemas/lock";
import type { Locator, OwnedItem, OwnerChange, OwnershipView } from "../../shared/schemas/ownership";
import type { RunOrigin } from "../../shared/schemas/provenance";
import type { Intent } from "../../shared/schemas/receipt";
import type { RecentWrite } from "../../shared/schemas/recent-writes";
import type { Waiting } from "../../shared/schemas/run";
import { type LockTarget, overriding } from "./lock-target";
import { reportWhileWaiting } from "./waiting-reports";

export interface LeaseOptions {
  ttlMs: number;
  wait?: boolean;
  waitTimeoutMs?: number;
  /** How long before the server-side expiry the holder stops trusting its lease. */
  safetyMarginMs?: number;
  clock?: Clock;
  releaseAttempts?: number;
  onWarning?: (message: string) => void;
  /**
   * The longest this lease may be held (a critical section's maximum length): renewals stop there,
   * and the deadline never moves past it, so a hung call cannot keep the lock forever.
   */
  maxHoldMs?: number;
  /** Shortens the lock-delay after this lease's expiry (the fencing tests' control case only). */
  lockDelayMs?: number;
  /**
   * The items whose ownership the holder will decide from: the grant (or the claim after a wait)
   * answers their view, read under the lease at that instant (`grantedOwners`).
   */
  items?: OwnedItem[];
  /** The run asking, kept with its lease and its place in the queue (docs/design.md, "Lock answers"). */
  origin?: RunOrigin;
  /** While queued (`wait`): told the lock, its holder, this run's place and the time waited so far. */
  onWaiting?: (waiting: Waiting) => void;
}

export const RELEASE_ATTEMPTS = 5;
/** How often one acquire re-joins after an object restart or a lapsed claim before giving up. */
export const REJOIN_ATTEMPTS = 5;

/** What the runtime throws into a call that was open when its Durable Object was reset. */
function isObjectReset(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const flags = err as { durableObjectReset?: unknown; retryable?: unknown };
  return flags.durableObjectReset === true || flags.retryable === true;
}

/** The claim came too late: the grant lapsed to the next waiter, so the holder queues again. */
class Rejoin extends Error {}

/** Every change a waiter brought was written by the holder: there is no lease to make. */
class Combined extends Error {
  readonly answer: CombinedAnswer;
  constructor(answer: CombinedAnswer) {
    super(`written by ${answer.by}`);
    this.answer = answer;
  }
}
const RELEASE_BACKOFF_MS = 100;

export function defaultSafetyMarginMs(ttlMs: number): number {
  return Math.min(Math.max(Math.floor(ttlMs / 10), 1), 5_000);
}

export class Lease {
  readonly target: LockTarget;
  readonly holder: string;
  readonly token: number;
  /**
   * Scope locks: the receipt etag the previous holder saved and released with, when the object
   * vouches for it (LeaseGrant.receiptEtag); null when it does not.
   */
  readonly receiptEtag: string | null;
  /**
   * Scope locks: intents a lock of the version before issue 29 kept for a holder that died, not
   * settled yet (LeaseGrant.pendingIntents; upgrading only).
   */
  readonly pendingIntents: readonly Intent[];
  readonly #ttlMs: number;
  readonly #marginMs: number;
  readonly #clock: Clock;
  readonly #attempts: number;
  readonly #warn: (message: string) => void;
  #deadline: number;
  #expiresAt: number;
  /** Past this no renewal is made (LeaseOptions.maxHoldMs). */
  readonly #holdUntil: number;
  #timer: unknown = null;
  #lost: SponsonError | null = null;
  #released = false;
  /** The ownership view the grant carried, until the first decision takes it (`grantedOwners`). */
  #granted: OwnershipView | null;

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
    this.receiptEtag = grant.receiptEtag ?? null;
    this.pendingIntents = grant.pendingIntents ?? [];
    this.#ttlMs = opts.ttlMs;
    this.#marginMs = opts.safetyMarginMs ?? defaultSafetyMarginMs(opts.ttlMs);
    this.#clock = opts.clock ?? systemClock;
    this.#attempts = opts.releaseAttempts ?? RELEASE_ATTEMPTS;
    this.#warn = opts.onWarning ?? ((m) => console.warn(m));
    this.#holdUntil = opts.maxHoldMs === undefined ? Infinity : deadline - opts.ttlMs + opts.maxHoldMs;
    this.#deadline = Math.min(deadline, this.#holdUntil);
    this.#expiresAt = grant.expiresAt;
    this.#granted = grant.ownership ?? null;
  }

  /**
   * Takes the lease or throws LOCK_HELD (SponsonError) naming the holder and until when. A grant
   * handed over after waiting is claimed right away: the object lets an unclaimed grant lapse to
   * the next waiter, so a caller that has gone never stalls the lock.
   */
  static async acquire(target: LockTarget, holder: string, opts: LeaseOptions): Promise<Lease> {
    const clock = opts.clock ?? systemClock;
    const margin = opts.safetyMarginMs ?? defaultSafetyMarginMs(opts.ttlMs);
    const wait = opts.wait ?? false;
    const giveUpAt = clock.now() + (opts.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS);
    const items = opts.items ? { items: opts.items } : {};
    const origin = opts.origin ? { origin: opts.origin } : {};
    for (let attempt = 1; ; attempt++) {
      // Measured before the call: the server's expiry can only be later than this plus the TTL.
      let before = clock.now();
      let grant: LeaseGrant;
      const stopReports =
        wait && opts.onWaiting
          ? reportWhileWaiting({ target, holder, clock, onWaiting: opts.onWaiting }, origin)
          : null;
      try {
        const result = await target.acquire({
          holder,
          ttlMs: opts.ttlMs,
          wait,
          waitTimeoutMs: Math.max(0, giveUpAt - before),
          ...(opts.lockDelayMs !== undefined ? { lockDelayMs: opts.lockDelayMs } : {}),
          ...items,
          ...origin,
        });
        stopReports?.();
        if (!result.ok) throw SponsonError.fromInfo(result.error);
        grant = result.value;
        if (grant.claimBy !== undefined) {
          before = clock.now();
          const claimed = await target.claim({ holder, token: grant.token, ...items });
          // Too late to claim (the window passed): the lock went on to the next waiter; queue again.
          if (!claimed.ok && claimed.error.code === "LOCK_LOST") throw new Rejoin();
          if (!claimed.ok) throw SponsonError.fromInfo(claimed.error);
          grant = claimed.value;
        }
      } catch (err) {
        stopReports?.();
        // An object restart (every deploy) drops its in-memory waiters and fails their open calls.
        // Asking again with the same holder is idempotent: it re-attaches to its place, or finds
        // the grant it was already given, so the caller sees a grant or LOCK_HELD, never the reset.
        const rejoin = err instanceof Rejoin || (wait && isObjectReset(err));
        if (!rejoin) throw err;
        if (attempt < REJOIN_ATTEMPTS && clock.now() < giveUpAt) continue;
        throw Lease.#gaveUp(target, holder, attempt);
      }
      const lease = new Lease(target, holder, grant, before + opts.ttlMs - margin, opts);
      // After a long wait the deadline measured before the call may already be spent: a renewal
      // right away gives a fresh one, measured the same way.
      if (clock.now() - before > opts.ttlMs / 3) await lease.renew();
      lease.#schedule();
      return lease;
    }
  }

  /**
   * Write combining (docs/design.md, "Write combining: the lock object's side"): `acquire`, handing
   * the object the changes this run wants made there in case it has to wait. Either a lease (the
   * run writes what is left itself; `combined` names what the holder already wrote for it, if
   * anything) or no lease and `combined` covering every change. Claim and re-join behave as in
   * `acquire`: a re-join after an object restart finds the stored answer.
   */
  static async acquireOrCombine(
    target: LockTarget,
    holder: string,
    opts: LeaseOptions,
    changes: QueuedChange[],
  ): Promise<{ lease: Lease | null; combined: CombinedAnswer | null; taken: boolean }> {
    let combined: CombinedAnswer | null = null;
    let taken = false;
    let calls = 0;
    const via = overriding(target, {
      acquire: async (req) => {
        calls += 1;
        const result = await target.acquireOrCombine({ ...req, changes });
        if (!result.ok) return result;
        // The answer naming what was written is delivered once: a re-join after it keeps it.
        combined = result.value.combined ?? combined;
        taken ||= result.value.taken === true;
        if (result.value.grant !== null) return ok(result.value.grant);
        if (combined === null)
          throw new SponsonError("INTERNAL", `${target.key} answered neither a grant nor a write`);
        throw new Combined(combined);
      },
    });
    try {
      const lease = await Lease.acquire(via, holder, opts);
      // A re-join (an object restart, a lapsed claim) forgets whether an earlier holder took them.
      return { lease, combined, taken: taken || calls > 1 };
    } catch (err) {
      if (err instanceof Combined) return { lease: null, combined: err.answer, taken: true };
      // Only the object that kept the waiter all along can vouch that nobody took its changes.
      if (calls > 1 && err instanceof SponsonError && err.detail?.untaken === true) {
        const { untaken: _, ...detail } = err.detail;
        throw new SponsonError(err.code, err.message, detail);
      }
      throw err;
    }
  }

  /** Still not granted after re-joining: the same answer as a wait that timed out, never a 500. */
  static #gaveUp(target: LockTarget, holder: string, attempts: number): SponsonError {
    return new SponsonError(
      "LOCK_HELD",
      `${holder} could not take ${target.key}: it re-joined ${attempts} times (the lock object restarted or the grant lapsed) without being granted`,
      { lock: target.key },
    );
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
    const now = this.#clock.now();
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

  /** The object's ownership of `items`, read as the holder (throws LOCK_LOST when no longer held). */
  async owners(items: OwnedItem[]): Promise<OwnershipView> {
    this.assertHeld();
    return this.#fenced(await this.target.owners({ holder: this.holder, token: this.token, items }));
  }

  /**
   * The ownership of `items` as the grant answered it (LeaseOptions.items), if it names every one
   * of them; null otherwise, and on every later call: it is the view as of the grant, so only the
   * first decision may use it (this holder's own changes since make it stale, and a decision made
   * again reads afresh). Same answer `owners` would give, since nobody else can change ownership
   * while the lease is held.
   */
  grantedOwners(items: readonly OwnedItem[]): OwnershipView | null {
    this.assertHeld();
    const view = this.#granted;
    this.#granted = null;
    if (!view) return null;
    const found = items.map(({ op, key }) => view.items.find((v) => v.op === op && v.key === key));
    if (found.some((v) => v === undefined)) return null;
    return { ...view, items: found as OwnershipView["items"] };
  }

  /**
   * Changes ownership, accepted by the object only with this lease's current token. The object
   * renews the lease in the same call: the deadline moves exactly as after `renew`, so a change
   * that succeeded is a fencing check of the lease at that instant (docs/design.md, "Lease
   * protocol").
   */
  async changeOwners(
    changes: OwnerChange[],
    options: { rebuilt?: boolean; locator?: Locator } = {},
  ): Promise<OwnershipView> {
    this.assertHeld();
    this.#granted = null;
    const before = this.#clock.now();
    const answer = this.#fenced(
      await this.target.changeOwners({ holder: this.holder, token: this.token, changes, ...options }),
    );
    this.#renewed(before, answer.expiresAt);
    const { expiresAt: _, ...view } = answer;
    return view;
  }

  /**
   * Takes the changes queued waiters brought that no holder took yet; they are this lease's to write
   * with its own and report (accepted only with this lease's current token).
   */
  async takeQueued(): Promise<QueuedWaiter[]> {
    this.assertHeld();
    return this.#fenced(await this.target.takeQueued({ holder: this.holder, token: this.token })).waiters;
  }

  /**
   * Reports a combined write: records `ownerChanges` (and the op's locator) and each waiter's
   * answer in one step on the object, fenced like `changeOwners`.
   */
  async reportCombined(
    reports: CombineReport[],
    ownerChanges: OwnerChange[],
    locator?: Locator,
  ): Promise<void> {
    this.assertHeld();
    const { holder, token } = this;
    this.#fenced(
      await this.target.reportCombined(
        locator
          ? { holder, token, reports, ownerChanges, locator }
          : { holder, token, reports, ownerChanges },
      ),
    );
  }

  /** The object's recent writes, read as the holder (docs/design.md, "Providers that forget a write"). */
  async recentWrites(): Promise<RecentWrite[]> {
    this.assertHeld();
    return this.#fenced(await this.target.recentWrites({ holder: this.holder, token: this.token }));
  }

  /** Remembers what a write just made true, accepted only with this lease's current token. */
  async rememberWrites(writes: RecentWrite[]): Promise<void> {
    this.assertHeld();
    if (writes.length === 0) return;
    this.#fenced(await this.target.rememberWrites({ holder: this.holder, token: this.token, writes }));
  }

  #fenced<T>(result: Result<T>): T {
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
    // The critical section's maximum length: no renewal keeps it alive past that.
    if (before >= this.#holdUntil) {
      this.#lost = this.#lostError("the critical section reached its maximum length");
      this.#stop();
      return;
    }
    let result: Awaited<ReturnType<LockTarget["renew"]>>;
    try {
      result = await this.target.renew({ holder: this.holder, token: this.token });
    } catch {
      // Transport trouble: keep the old deadline; the next tick tries again.
      return;
    }
    if (result.ok) {
      this.#renewed(before, result.value.expiresAt);
    } else if (result.error.code === "LOCK_LOST") {
      this.#lost = this.#lostError(result.error.message);
      this.#stop();
    }
  }

  /** A renewal measured from `before` (the clock read just before its call) succeeded. */
  #renewed(before: number, expiresAt: number): void {
    this.#deadline = Math.min(
      Math.max(this.#deadline, before + this.#ttlMs - this.#marginMs),
      this.#holdUntil,
    );
    this.#expiresAt = expiresAt;
  }

  /**
   * Gives the lease up without releasing it: no more renewals, no release call. After a write
   * whose outcome is unknown (it may still land), the lease must end by expiry, not by a release,
   * so the lock-delay after its expiry keeps the next holder from reading before it lands.
   */
  abandon(reason: string): void {
    if (this.#released) return;
    this.#released = true;
    this.#lost ??= this.#lostError(reason);
    this.#stop();
  }

  /**
   * Idempotent; retried with backoff; a final failure warns with the key and until when.
   * `receiptEtag` hands the etag of this holder's last successful receipt save to the next holder
   * (scope leases; docs/design.md, "Run algorithm").
   */
  async release(receiptEtag: string | null = null, intentsSettled = receiptEtag !== null): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    this.#stop();
    const handOver = {
      ...(receiptEtag === null ? {} : { receiptEtag }),
      ...(intentsSettled ? { intentsSettled: true } : {}),
    };
    for (let attempt = 1; attempt <= this.#attempts; attempt++) {
      try {
        const result = await this.target.release({ holder: this.holder, token: this.token, ...handOver });
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
