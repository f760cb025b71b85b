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
import { HeldIndex } from "./held-index";
import { lastForceRelease } from "./lease-endings";
import { holdsToken, type LeaseRow, leaseHolderOf, lostRefusal } from "./lease-rules";
import { LeaseStore } from "./lease-store";
import { LeaseTransitions } from "./lease-transitions";
import {
  announce,
  arm,
  type Effect,
  type LeaseLockDeps,
  LIST_CONTENDED,
  LockEffects,
  type Step,
  SYNC_INDEX,
} from "./lock-effects";
import { checkHold, holdView, LockHolds } from "./lock-holds";
import { type Waiter, WaiterQueue, waiterView, waitingOf } from "./waiter-queue";

/** How soon the alarm retries an index delete that failed on a free lock. */
const INDEX_RETRY_MS = 30_000;

/** What a role adds to the alarm: its own aging of what it stores, and the alarm it asks for. */
export type AlarmWork = (now: number, lease: LeaseRow | null) => Effect[];

/** What the parent role builds on (parent-lock-role.ts): its tables, the fence, the lease steps. */
export type ParentRoleContext = Pick<
  LeaseCore,
  "sql" | "store" | "fence" | "acquire" | "extendHeld" | "onHold"
>;
/** What the combining queue builds on (combine-waiters.ts): the waiters and the one commit. */
export type CombineContext = Pick<
  LeaseCore,
  "sql" | "storage" | "store" | "queue" | "commit" | "refusalFor" | "giveUpOverdue"
>;
/** What the intents kept before 0.2 are drained with (legacy-intents.ts). */
export type LegacyContext = Pick<LeaseCore, "sql" | "store" | "fence">;

export class LeaseCore {
  readonly #ctx: DurableObjectState;
  readonly #store: LeaseStore;
  readonly #queue: WaiterQueue;
  readonly #holds: LockHolds;
  readonly #lease: LeaseTransitions;
  readonly #index: HeldIndex;
  readonly #effects: LockEffects;

  constructor(ctx: DurableObjectState, env: Env, deps: LeaseLockDeps) {
    this.#ctx = ctx;
    const store = new LeaseStore(ctx.storage.sql);
    this.#store = store;
    this.#holds = new LockHolds(ctx.storage.sql, store, env);
    this.#index = new HeldIndex(env, ctx, store, {
      listed: () => this.commit([announce("held")]),
      onHold: () => this.#holds.inForce(Date.now()) !== null,
    });
    this.#effects = new LockEffects({
      ctx,
      env,
      key: () => store.key,
      syncIndexLater: () => this.#index.syncLater(),
      listContended: () => this.#index.listContended(),
      notify: deps.notify,
    });
    // A waiter's timeout is a transition like any other: its effects are committed here.
    this.#queue = new WaiterQueue((waiter) => this.commit(this.#lease.giveUp(waiter).effects));
    this.#lease = new LeaseTransitions(store, this.#holds, this.#queue);
  }

  get sql(): SqlStorage {
    return this.#ctx.storage.sql;
  }

  get storage(): DurableObjectStorage {
    return this.#ctx.storage;
  }

  /** The lease row, the typed meta values and the history (lease-store.ts). */
  get store(): LeaseStore {
    return this.#store;
  }

  get queue(): WaiterQueue {
    return this.#queue;
  }

  /** The lease as stored, and the alarm as armed: loaded before the first call is delivered. */
  async load(): Promise<void> {
    this.#store.load();
    await this.#effects.load();
  }

  /** The one place effects happen: alarms, announcements, the index, notices (lock-effects.ts). */
  commit(effects: readonly Effect[]): void {
    this.#effects.commit(effects);
  }

  /** A transition committed: its effects done, its outcome answered. */
  #run<T>(step: Step<T>): T {
    this.commit(step.effects);
    return step.result;
  }

  #promote(now: number): void {
    this.commit(this.#lease.promote(now).effects);
  }

  /** An admin's hold is in force: nothing is taken for a holder to write (parent-lock-role.ts). */
  onHold(now: number): boolean {
    return this.#holds.inForce(now) !== null;
  }

  /** What a waiter that leaves the queue without a grant is told: the lock is held. */
  refusalFor(waiter: Waiter): Result<never> {
    return this.#lease.held(this.#store.lease(), this.#lease.askerOf(waiter));
  }

  /** Refuses the waiters kept past their timeout while taken, once they no longer are. */
  giveUpOverdue(): void {
    this.#run(this.#lease.giveUpOverdue());
  }

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
    const step = this.#run(this.#lease.acquireStep(req));
    if (step.kind === "queued") {
      // Behind the wait: a handoff to this waiter never waits for R2.
      this.commit([LIST_CONTENDED]);
      return step.answer;
    }
    const result = answered(step.result);
    if (!result.ok && result.error.code === "LOCK_HELD") await this.#index.listContended();
    return result;
  }

  /**
   * A renewal, or the claim of a grant to a waiter (idempotent for a lease already claimed): the
   * holder is evidently there.
   */
  renew(req: FencedRequest): Result<LeaseGrant> {
    const store = this.#store;
    store.remember(req.key, null);
    const now = Date.now();
    this.#promote(now);
    const lease = store.lease();
    if (!holdsToken(lease, req.holder, req.token, now)) {
      this.#run(this.#lease.expireIfDue(now));
      this.commit([SYNC_INDEX]);
      return lostRefusal(req, lease, now, lastForceRelease(store));
    }
    const renewed = this.#run(store.extend(lease as LeaseRow, lease?.ttlMs ?? 0, now, null));
    // Renewals are the steady heartbeat of a held lock: each one also repairs a lost index add.
    this.commit([SYNC_INDEX]);
    return ok(store.grantOf(renewed));
  }

  /** Renews the live lease (after `fence` accepted its holder): a fenced change is a renewal too. */
  extendHeld(now: number): number {
    const lease = this.#store.lease() as LeaseRow;
    const { expiresAt } = this.#run(this.#store.extend(lease, lease.ttlMs, now, null));
    this.commit([SYNC_INDEX]);
    return expiresAt;
  }

  /**
   * The holder's release. The answer says whether the lease was live when it arrived (`released`)
   * or had expired (`released-expired`).
   */
  release(req: ReleaseRequest): Result<ReleaseOutcome> {
    return ok(this.#run(this.#lease.release(req, Date.now())));
  }

  forceRelease(req: { key: string; reason: string; actor: string }): Result<ReleaseOutcome> {
    return ok(this.#run(this.#lease.forceRelease(req, Date.now())));
  }

  waiting(req: { key: string; holder: string; origin?: RunOrigin }): WaitingAnswer {
    // Read-only: no promote, no index work; a report may only ever say what is.
    const { viewer } = this.#lease.askerOf(req);
    // A hold in force is what a queued run waits for, whoever holds the lease now.
    const hold = this.#holds.view(Date.now());
    return waitingOf(this.#queue.all(), req.holder, { lease: this.#store.lease(), viewer, hold });
  }

  /** The lock's state, with the held-lock index brought in step first. */
  async read(req: { key: string }): Promise<LockState> {
    // No remember here: reading a key nobody ever locked (GET /v1/locks/{key}) must not create
    // storage for it.
    const now = Date.now();
    this.#promote(now);
    this.#run(this.#lease.expireIfDue(now));
    // A read settles the index both ways (the listing reads every entry it finds, so a stale
    // entry disappears the first time anyone lists it); transitions only ever add.
    await this.#index.sync(true);
    const store = this.#store;
    const lease = store.lease();
    const key = store.key ?? req.key;
    const hold = this.#holds.view(now);
    return {
      key,
      kind: lockKind(key) ?? "scope",
      identity: store.identity,
      held: lease !== null,
      holder: lease?.holder ?? null,
      token: lease?.token ?? null,
      since: lease?.acquiredAt ?? null,
      expiresAt: lease?.expiresAt ?? null,
      heldBy: lease === null ? null : leaseHolderOf(lease, null),
      waiters: this.#queue.all().map((w, at) => waiterView(w, at + 1, lease?.token ?? null)),
      ...(hold ? { hold } : {}),
      lastToken: store.lastToken(),
      history: store.history(),
    };
  }

  /**
   * Sets a hold (lock-holds.ts); grants already due (an expired hold, a release) happen first: the
   * new hold is not retroactive. The lock is listed before the answer, held or not.
   */
  async hold(req: { key: string; reason: string; by: string; ttlMs: number }): Promise<Result<HoldOutcome>> {
    const checked = checkHold(req);
    if (!checked.ok) return checked;
    this.#store.remember(checked.value.key, null);
    const now = Date.now();
    this.#promote(now);
    const set = this.#run(this.#holds.set(checked.value, now));
    await this.#index.listContended();
    return ok(set);
  }

  /** Lifts the hold in force (if any) and hands the lock to the first waiter. */
  async unhold(req: { key: string; actor: string }): Promise<Result<HoldOutcome>> {
    const now = Date.now();
    const lifted = this.#run(this.#holds.lift(req, now));
    this.#promote(now);
    await this.#index.sync(true);
    return ok({ hold: null, previous: lifted ? holdView(lifted) : null, at: now });
  }

  /** LOCK_LOST unless `holder` holds `token` now; fenced calls are only ever served under the lease. */
  fence(req: FencedRequest, now: number): Result<never> | null {
    this.#promote(now);
    const lease = this.#store.lease();
    if (holdsToken(lease, req.holder, req.token, now)) return null;
    return lostRefusal(req, lease, now, lastForceRelease(this.#store));
  }

  /**
   * Fires at (or before) the live lease's expiry, and once more after the lock went free: that
   * firing deletes the held-lock index entry, which transitions leave in place while the lock is
   * busy (docs/storage.md).
   */
  async alarm(age: AlarmWork): Promise<void> {
    this.#effects.alarmFired();
    const now = Date.now();
    this.#promote(now);
    this.#run(this.#lease.expireIfDue(now));
    const store = this.#store;
    const lease = store.lease();
    // A repeated or early alarm finds nothing due and only re-arms for the live lease.
    if (lease) this.commit([arm(lease.expiresAt)]);
    // Within a lock-delay the waiters are handed the lock when it ends.
    const quiet = store.quietUntil(now);
    if (quiet > now) this.commit([arm(quiet)]);
    this.commit(age(now, lease));
    // A hold in force re-arms for its end; one that ended is recorded in the audit trail.
    const holdRetry = this.#run(await this.#holds.settle(now));
    await this.#index.sync(true);
    // A free lock whose index delete failed keeps an alarm, so the write is retried without
    // waiting for anyone to read or list it.
    const free = store.lease() === null && this.#holds.view(Date.now()) === undefined;
    if (holdRetry || (free && this.#index.marked)) this.commit([arm(Date.now() + INDEX_RETRY_MS)]);
  }
}
