/**
 * The lease core every lock shares (docs/design.md, "Lease protocol"): grants, renewals, releases,
 * holds, the waiters queue, the fencing check, the held-lock index and the alarm. Every method
 * reads the clock itself, so a late, repeated or missing alarm only delays a grant; it never lets
 * two holders overlap. A scope lock is the core alone (its grant hands over the receipt etag the
 * store keeps); what a parent lock adds is its role (parent-lock-role.ts); lease-lock.ts is the
 * object that exposes them.
 */
import type { Env } from "../shared/env";
import { ok, type Result } from "../shared/errors";
import { lockKind } from "../shared/lock-keys";
import type { AcquireRequest, FencedRequest, ReleaseRequest, WaitingAnswer } from "../shared/rpc/lease-lock";
import type { HoldOutcome } from "../shared/schemas/hold";
import type { LeaseGrant, LockState, ReleaseOutcome } from "../shared/schemas/lock";
import type { RunOrigin } from "../shared/schemas/provenance";
import { isTaken } from "./combine-queue";
import { FeedNotices } from "./feed-notices";
import { lastForceRelease, rememberForceRelease } from "./force-released";
import { HeldIndex } from "./held-index";
import { HoldStore } from "./hold-store";
import {
  holdsToken,
  isExpired,
  type LeaseRow,
  leaseHolderOf,
  lostRefusal,
  QUIET_RELEASE_NOTE,
} from "./lease-rules";
import { LeaseStore } from "./lease-store";
import { type AcquireStep, LeaseTransitions } from "./lease-transitions";
import { LockHolds } from "./lock-holds";
import { type LockNotice, takeoverNotice } from "./takeover";
import { waiterView } from "./waiter-queue";

/** How soon the alarm retries an index delete that failed on a free lock. */
const INDEX_RETRY_MS = 30_000;

/**
 * What the Worker hands the lock object (workers/wiring/objects.ts): the lock layer imports nothing
 * from workers/, so the transport of its notices to operators comes in here.
 */
export interface LeaseLockDeps {
  /** Puts a notice on the notifications queue; logs and answers on failure, never throws. */
  notify(env: Env, notice: LockNotice): Promise<unknown>;
}

/** What a role adds to the alarm: its own aging of what it stores. */
export type AlarmWork = (now: number, lease: LeaseRow | null) => void;

export class LeaseCore {
  readonly sql: SqlStorage;
  readonly feed: FeedNotices;
  readonly store: LeaseStore;
  readonly lease: LeaseTransitions;
  readonly index: HeldIndex;
  readonly holds: LockHolds;
  readonly #ctx: DurableObjectState;
  /** The armed alarm as this object last set or found it (null: none armed). */
  #alarmAt: number | null = null;

  constructor(ctx: DurableObjectState, env: Env, deps: LeaseLockDeps) {
    this.#ctx = ctx;
    this.sql = ctx.storage.sql;
    this.feed = new FeedNotices(env, () => this.store.key);
    const announce = this.announce;
    const armAlarm = this.armAlarm;
    this.store = new LeaseStore(this.sql, { armAlarm, announce });
    const holds = new HoldStore(this.sql);
    this.index = new HeldIndex(env, ctx, this.store, {
      listed: () => announce("held"),
      onHold: () => holds.inForce(Date.now()) !== null,
    });
    this.lease = new LeaseTransitions({
      store: this.store,
      holds,
      announce,
      syncIndexLater: () => this.index.syncLater(),
      // The SQL write is already made; the output gate holds the send until it is durable.
      tookOver: (previous, grant) =>
        ctx.waitUntil(deps.notify(env, takeoverNotice(grant.key, previous, grant, Date.now()))),
    });
    const [store, lease, index] = [this.store, this.lease, this.index];
    this.holds = new LockHolds({ env, holds, store, lease, index, armAlarm, announce });
  }

  /** The lease as stored, and the alarm as armed: loaded before the first call is delivered. */
  async load(): Promise<void> {
    this.store.load();
    this.#alarmAt = await this.#ctx.storage.getAlarm();
  }

  readonly announce = (change: Parameters<FeedNotices["announce"]>[0]): void => this.feed.announce(change);

  /**
   * acquire's decision, and the held-lock index for a lock someone else now asks for: a caller
   * that queues or is refused has it listed before it waits or is answered (so a listing right
   * after names who holds it). `answered` adds what a role reads in the same synchronous step as
   * a grant made at once (the parent lock's ownership view).
   */
  async acquire(
    req: AcquireRequest,
    answered: (result: Result<LeaseGrant>) => Result<LeaseGrant> = (r) => r,
  ): Promise<Result<LeaseGrant>> {
    const step: AcquireStep = this.lease.acquireStep(req);
    if (step.kind === "queued") {
      // Behind the wait: a handoff to this waiter never waits for R2.
      this.#ctx.waitUntil(this.index.listContended());
      return step.answer;
    }
    const result = answered(step.result);
    if (!result.ok && result.error.code === "LOCK_HELD") await this.index.listContended();
    return result;
  }

  /**
   * A renewal, or the claim of a grant to a waiter (idempotent for a lease already claimed): the
   * holder is evidently there.
   */
  renew(req: FencedRequest): Result<LeaseGrant> {
    this.store.remember(req.key, null);
    const now = Date.now();
    this.lease.promote(now);
    const lease = this.store.lease();
    if (!holdsToken(lease, req.holder, req.token, now)) {
      this.lease.expireIfDue(now);
      this.index.syncLater();
      return lostRefusal(req, lease, now, lastForceRelease(this.store));
    }
    const renewed = this.store.grantOf(this.store.extend(lease as LeaseRow, lease?.ttlMs ?? 0, now, null));
    // Renewals are the steady heartbeat of a held lock: each one also repairs a lost index add.
    this.index.syncLater();
    return ok(renewed);
  }

  /** Renews the live lease (after `fence` accepted its holder): a fenced change is a renewal too. */
  extendHeld(now: number): number {
    const lease = this.store.lease() as LeaseRow;
    const { expiresAt } = this.store.extend(lease, lease.ttlMs, now, null);
    this.index.syncLater();
    return expiresAt;
  }

  /**
   * The holder's release. The answer says whether the lease was live when it arrived (`released`)
   * or had expired (`released-expired`).
   */
  release(req: ReleaseRequest): Result<ReleaseOutcome> {
    this.store.remember(req.key, null);
    const now = Date.now();
    const lease = this.store.lease();
    if (lease === null) {
      this.lease.promote(now);
      return ok({ released: false, reason: "not-held", at: now });
    }
    if (lease.holder !== req.holder || lease.token !== req.token) {
      this.lease.promote(now);
      return ok({ released: false, reason: "stale-token", at: now });
    }
    // Releasing an expired lease is still the holder's own release (nobody else had it yet), but
    // the history says it came late.
    const expired = isExpired(lease, now);
    // Quiet: a write attempt under it went unanswered and may still land (lease-rules.ts quietUntil).
    const quiet = req.quiet === true;
    const how = expired ? "released-expired" : "released";
    this.store.free({ how, at: now, quiet }, lease, quiet ? QUIET_RELEASE_NOTE : null);
    // The receipt etag its save left, for the next grant: only from a release in time (after an
    // expiry, nobody can vouch the holder's view was still the latest), and only a short string.
    if (!expired) this.store.handOverReceiptEtag(req.receiptEtag ?? null);
    this.lease.promote(now);
    this.index.syncLater();
    // Not live any more: a holder using this release as its check after a write must hear it.
    return ok({ released: true, reason: expired ? "released-expired" : "released", at: now });
  }

  forceRelease(req: { key: string; reason: string; actor: string }): Result<ReleaseOutcome> {
    this.store.remember(req.key, null);
    const now = Date.now();
    const lease = this.store.lease();
    if (lease === null) return ok({ released: false, reason: "not-held", at: now });
    // A lease past its expiry (the alarm had not freed it) ends as that expiry: its lock-delay, if
    // any, still applies (an unclaimed grant has none: nobody wrote); an admin lifts no lock-delay.
    const past = isExpired(lease, now);
    if (past) this.lease.expireIfDue(now);
    else {
      this.store.free({ how: "force-released", at: now }, lease, `by ${req.actor}: ${req.reason}`);
      rememberForceRelease(this.store, lease, { actor: req.actor, reason: req.reason, at: now });
    }
    this.lease.promote(now);
    this.index.syncLater();
    const lockDelay = past && !lease.claimPending;
    return ok({ released: true, reason: lockDelay ? "released-expired" : "released", at: now });
  }

  waiting(req: { key: string; holder: string; origin?: RunOrigin }): WaitingAnswer {
    // Read-only: no promote, no index work; a report may only ever say what is.
    const queue = this.lease.queue.all();
    const at = queue.findIndex((w) => w.holder === req.holder);
    const lease = this.store.lease();
    const { viewer } = this.lease.askerOf(req);
    // A hold in force is what a queued run waits for, whoever holds the lease now.
    const hold = this.holds.view(Date.now());
    const combine = queue[at]?.combine;
    return {
      position: at < 0 ? null : at + 1,
      holder: hold
        ? { hold: { reason: hold.reason, by: hold.by, until: hold.until } }
        : lease === null
          ? null
          : leaseHolderOf(lease, viewer),
      // The same test as the waiter's timeout (lease-transitions.ts): taken by the live lease.
      taken: combine !== undefined && isTaken(combine, lease?.token ?? null),
    };
  }

  /** The lock's state, with the held-lock index brought in step first. */
  async read(req: { key: string }): Promise<LockState> {
    // No remember here: reading a key nobody ever locked (GET /v1/locks/{key}) must not create
    // storage for it.
    const now = Date.now();
    this.lease.promote(now);
    this.lease.expireIfDue(now);
    // A read settles the index both ways (the listing reads every entry it finds, so a stale
    // entry disappears the first time anyone lists it); transitions only ever add.
    await this.index.sync(true);
    const lease = this.store.lease();
    const key = this.store.key ?? req.key;
    const hold = this.holds.view(now);
    return {
      key,
      kind: lockKind(key) ?? "scope",
      identity: this.store.identity,
      held: lease !== null,
      holder: lease?.holder ?? null,
      token: lease?.token ?? null,
      since: lease?.acquiredAt ?? null,
      expiresAt: lease?.expiresAt ?? null,
      heldBy: lease === null ? null : leaseHolderOf(lease, null),
      waiters: this.lease.queue.all().map((w, at) => waiterView(w, at + 1, lease?.token ?? null)),
      ...(hold ? { hold } : {}),
      lastToken: this.store.lastToken(),
      history: this.store.history(),
    };
  }

  hold(req: { key: string; reason: string; by: string; ttlMs: number }): Promise<Result<HoldOutcome>> {
    return this.holds.set(req);
  }

  unhold(req: { key: string; actor: string }): Promise<Result<HoldOutcome>> {
    return this.holds.lift(req);
  }

  /** LOCK_LOST unless `holder` holds `token` now; fenced calls are only ever served under the lease. */
  fence(req: FencedRequest, now: number): Result<never> | null {
    this.lease.promote(now);
    const lease = this.store.lease();
    if (holdsToken(lease, req.holder, req.token, now)) return null;
    return lostRefusal(req, lease, now, lastForceRelease(this.store));
  }

  /**
   * Fires at (or before) the live lease's expiry, and once more after the lock went free: that
   * firing deletes the held-lock index entry, which transitions leave in place while the lock is
   * busy (docs/storage.md).
   */
  async alarm(age: AlarmWork): Promise<void> {
    // The firing alarm is no longer armed: whatever this call arms is the next one.
    this.#alarmAt = null;
    const now = Date.now();
    this.lease.promote(now);
    this.lease.expireIfDue(now);
    const lease = this.store.lease();
    // A repeated or early alarm finds nothing due and only re-arms for the live lease.
    if (lease) this.armAlarm(lease.expiresAt);
    // Within a lock-delay the waiters are handed the lock when it ends.
    const quiet = this.store.quietUntil(now);
    if (quiet > now) this.armAlarm(quiet);
    age(now, lease);
    // A hold in force re-arms for its end; one that ended is recorded in the audit trail.
    const holdRetry = await this.holds.settle(now);
    await this.index.sync(true);
    // A free lock whose index delete failed keeps an alarm, so the write is retried without
    // waiting for anyone to read or list it.
    const free = this.store.lease() === null && this.holds.view(Date.now()) === undefined;
    if (holdRetry || (free && this.index.marked)) {
      this.armAlarm(Date.now() + INDEX_RETRY_MS);
    }
  }

  /**
   * Makes sure an alarm fires no later than `at`. An alarm armed earlier is kept (it fires, finds
   * nothing due and re-arms at the live expiry), so renewals and back-to-back grants do not each
   * write the alarm: a busy lock re-arms about once per TTL, not once per transition.
   */
  readonly armAlarm = (at: number): void => {
    if (this.#alarmAt !== null && this.#alarmAt <= at) return;
    this.#alarmAt = at;
    void this.#ctx.storage.setAlarm(at);
  };
}
