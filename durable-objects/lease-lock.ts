/**
 * One lease object per lock key (docs/design.md, "Lease protocol"). Every method reads the clock itself, so a
 * late, repeated or missing alarm only delays a grant; it never lets two holders overlap.
 *
 * A thin RPC class composing one module per concern: the lease store (lease-store.ts), its
 * transitions and waiter queue (lease-transitions.ts, waiter-queue.ts), write combining
 * (combine-waiters.ts), ownership (lock-ownership.ts), the held-lock index (held-index.ts) and the
 * dashboards' notices (feed-notices.ts). Its own helpers are `#private`: none is callable over RPC.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../shared/env";
import { fail, ok, type Result } from "../shared/errors";
import { lockKind } from "../shared/lock-keys";
import type {
  AcquireRequest,
  ClaimRequest,
  FencedRequest,
  LeaseLockApi,
  ReportCombinedRequest,
} from "../shared/rpc/lease-lock";
import {
  type GrantOrCombined,
  MAX_QUEUED_CHANGES,
  queuedChangesSchema,
  reportCombinedBodySchema,
  type TakenQueue,
} from "../shared/schemas/combine";
import type { HoldOutcome } from "../shared/schemas/hold";
import type { LeaseGrant, LockState, ReleaseOutcome } from "../shared/schemas/lock";
import type {
  Locator,
  OwnedItem,
  OwnerChange,
  OwnerChangeAnswer,
  OwnershipRecord,
  OwnershipView,
} from "../shared/schemas/ownership";
import type { LockHolder, RunOrigin } from "../shared/schemas/provenance";
import type { Intent } from "../shared/schemas/receipt";
import type { RecentWrite } from "../shared/schemas/recent-writes";
import { CombineWaiters } from "./combine-waiters";
import { FeedNotices } from "./feed-notices";
import { HeldIndex } from "./held-index";
import { HoldStore } from "./hold-store";
import { holdsToken, isExpired, type LeaseRow, leaseHolderOf, lostRefusal } from "./lease-rules";
import { migrate } from "./lease-schema";
import { LeaseStore } from "./lease-store";
import { type AcquireStep, LeaseTransitions } from "./lease-transitions";
import { LockHolds } from "./lock-holds";
import { LockOwnership } from "./lock-ownership";
import { PendingIndex } from "./pending-index";
import { PendingIntents, putIntentsSchema } from "./pending-intents";
import {
  liveRecentWrites,
  recentWritesAt,
  rememberedWritesSchema,
  rememberWrites,
} from "./recent-writes-store";
import { waiterView } from "./waiter-queue";

export { HISTORY_LIMIT } from "./lease-store";

/** The longest receipt etag a release may hand over (R2's are 32 hex digits; a legacy one is prefixed). */
const MAX_RECEIPT_ETAG_LENGTH = 200;

function receiptEtagOf(etag: unknown): string | null {
  return typeof etag === "string" && etag.length > 0 && etag.length <= MAX_RECEIPT_ETAG_LENGTH ? etag : null;
}

/** How soon the alarm retries an index delete that failed on a free lock. */
const INDEX_RETRY_MS = 30_000;

export class LeaseLock extends DurableObject<Env> implements LeaseLockApi {
  readonly #sql: SqlStorage;
  readonly #feed: FeedNotices;
  readonly #store: LeaseStore;
  readonly #lease: LeaseTransitions;
  readonly #index: HeldIndex;
  readonly #ownership: LockOwnership;
  readonly #combining: CombineWaiters;
  readonly #pending: PendingIntents;
  readonly #pendingIndex: PendingIndex;
  readonly #holds: LockHolds;
  /** The armed alarm as this object last set or found it (null: none armed). */
  #alarmAt: number | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#feed = new FeedNotices(env, () => this.#store.key);
    const announce = (change: Parameters<FeedNotices["announce"]>[0]) => this.#feed.announce(change);
    const armAlarm = (at: number) => this.#armAlarm(at);
    this.#store = new LeaseStore(this.#sql, { armAlarm, announce });
    const holds = new HoldStore(this.#sql);
    this.#index = new HeldIndex(env, ctx, this.#store, {
      listed: () => announce("held"),
      onHold: () => holds.inForce(Date.now()) !== null,
    });
    this.#lease = new LeaseTransitions({
      store: this.#store,
      holds,
      announce,
      syncIndexLater: () => this.#index.syncLater(),
    });
    const [store, lease, index] = [this.#store, this.#lease, this.#index];
    this.#holds = new LockHolds({ env, holds, store, lease, index, armAlarm, announce });
    this.#ownership = new LockOwnership(this.#sql, this.#store, env);
    this.#pending = new PendingIntents(this.#sql);
    this.#pendingIndex = new PendingIndex(env, ctx, this.#store, this.#pending);
    this.#combining = new CombineWaiters({
      sql: this.#sql,
      storage: ctx.storage,
      store: this.#store,
      queue: this.#lease.queue,
      announce,
      armAlarm,
      heldRefusal: (waiter) => this.#lease.held(this.#store.lease(), this.#lease.askerOf(waiter)),
      giveUpOverdue: () => this.#lease.giveUpOverdue(),
    });
    ctx.blockConcurrencyWhile(async () => {
      migrate(this.#sql);
      this.#store.load();
      this.#alarmAt = await ctx.storage.getAlarm();
    });
  }

  async acquire(req: AcquireRequest): Promise<Result<LeaseGrant>> {
    return this.#withPending(await this.#acquireStep(req));
  }

  /**
   * acquire's decision, and the held-lock index for a lock someone else now asks for: a caller
   * that queues or is refused has it listed before it waits or is answered (so a listing right
   * after names who holds it).
   */
  async #acquireStep(req: AcquireRequest): Promise<Result<LeaseGrant>> {
    const step = this.#acquireNow(req);
    if (step.kind === "queued") {
      // Behind the wait: a handoff to this waiter never waits for R2.
      this.ctx.waitUntil(this.#index.listContended());
      return step.answer;
    }
    if (!step.result.ok && step.result.error.code === "LOCK_HELD") await this.#index.listContended();
    return step.result;
  }

  async renew(req: { key: string; holder: string; token: number }): Promise<Result<LeaseGrant>> {
    return this.#renewNow(req);
  }

  /**
   * Confirms a lease granted to a waiter, within its claim window; idempotent for a lease already
   * claimed. A renewal or re-acquire by the holder claims it too (the holder is evidently there).
   * With `items`, the claim answers their ownership view, read in the same step (under the lease).
   */
  async claim(req: ClaimRequest): Promise<Result<LeaseGrant>> {
    return this.#withPending(this.#withOwnership(this.#renewNow(req), req.items));
  }

  /**
   * acquire's decision step, with the ownership view of `items` read in the same synchronous step
   * as a grant made at once: nobody but the new holder can change it before its first call. A
   * grant to a waiter comes later, provisional: its claim carries the items and the view.
   */
  #acquireNow(req: AcquireRequest): AcquireStep {
    const step = this.#lease.acquireStep(req);
    if (step.kind === "queued") return step;
    return { kind: "answered", result: this.#withOwnership(step.result, req.items) };
  }

  /** A (claimed) grant with the ownership view of `items`, read now; anything else as it is. */
  #withOwnership(result: Result<LeaseGrant>, items: OwnedItem[] | undefined): Result<LeaseGrant> {
    if (!result.ok || items === undefined || result.value.claimBy !== undefined) return result;
    return ok({ ...result.value, ownership: this.#ownership.view(items) });
  }

  #renewNow(req: { key: string; holder: string; token: number }): Result<LeaseGrant> {
    this.#store.remember(req.key, null);
    const now = Date.now();
    this.#lease.promote(now);
    const lease = this.#store.lease();
    if (!holdsToken(lease, req.holder, req.token, now)) {
      this.#lease.expireIfDue(now);
      this.#index.syncLater();
      this.#pendingIndexIfDue();
      return lostRefusal(req, lease, now);
    }
    const renewed = this.#store.grantOf(this.#store.extend(lease as LeaseRow, lease?.ttlMs ?? 0, now, null));
    // Renewals are the steady heartbeat of a held lock: each one also repairs a lost index add.
    this.#index.syncLater();
    return ok(renewed);
  }

  async putIntents(req: FencedRequest & { intents: Intent[] }): Promise<Result<LeaseGrant>> {
    const intents = putIntentsSchema.safeParse(req.intents);
    if (!intents.success) return fail("VALIDATION", `intents refused: ${intents.error.message}`);
    const renewed = await this.renew(req);
    // Only the live holder's intents are kept: renew refused anyone else (LOCK_LOST).
    if (!renewed.ok) return renewed;
    return ok({ ...renewed.value, intentSeq: this.#pending.put(intents.data) });
  }

  async pendingIntents(_req: { key: string }): Promise<Intent[]> {
    return this.#pending.all();
  }

  async release(req: {
    key: string;
    holder: string;
    token: number;
    receiptEtag?: string;
    intentsSettled?: boolean;
  }): Promise<Result<ReleaseOutcome>> {
    this.#store.remember(req.key, null);
    const now = Date.now();
    const lease = this.#store.lease();
    if (lease === null) {
      this.#lease.promote(now);
      return ok({ released: false, reason: "not-held", at: now });
    }
    if (lease.holder !== req.holder || lease.token !== req.token) {
      this.#lease.promote(now);
      return ok({ released: false, reason: "stale-token", at: now });
    }
    // Releasing an expired lease is still the holder's own release (nobody else had it yet), but
    // the history says it came late.
    const expired = isExpired(lease, now);
    this.#store.free(now, expired ? "released-expired" : "released", lease, null);
    // The receipt etag its save left, for the next grant: only from a release in time (after an
    // expiry, nobody can vouch the holder's view was still the latest), and only a short string.
    if (!expired) this.#store.handOverReceiptEtag(receiptEtagOf(req.receiptEtag));
    // Its last save holds every intent still unresolved (a late release too: nobody held the lock
    // since, so nobody else put any): the lock need keep none of them.
    if (req.intentsSettled === true) this.#pending.clear();
    this.#lease.promote(now);
    this.#index.syncLater();
    this.#pendingIndex.syncLater();
    return ok({ released: true, reason: "released", at: now });
  }

  async forceRelease(req: { key: string; reason: string; actor: string }): Promise<Result<ReleaseOutcome>> {
    this.#store.remember(req.key, null);
    const now = Date.now();
    const lease = this.#store.lease();
    if (lease === null) return ok({ released: false, reason: "not-held", at: now });
    this.#store.free(now, "force-released", lease, `by ${req.actor}: ${req.reason}`);
    this.#lease.promote(now);
    this.#index.syncLater();
    this.#pendingIndex.syncLater();
    return ok({ released: true, reason: "released", at: now });
  }

  async waiting(req: {
    key: string;
    holder: string;
    origin?: RunOrigin;
  }): Promise<{ position: number | null; holder: LockHolder | null }> {
    // Read-only: no promote, no index work; a report may only ever say what is.
    const at = this.#lease.queue.all().findIndex((w) => w.holder === req.holder);
    const lease = this.#store.lease();
    const { viewer } = this.#lease.askerOf(req);
    // A hold in force is what a queued run waits for, whoever holds the lease now.
    const hold = this.#holds.view(Date.now());
    return {
      position: at < 0 ? null : at + 1,
      holder: hold
        ? { hold: { reason: hold.reason, by: hold.by, until: hold.until } }
        : lease === null
          ? null
          : leaseHolderOf(lease, viewer),
    };
  }

  async read(req: { key: string }): Promise<LockState> {
    // No remember here: reading a key nobody ever locked (GET /v1/locks/{key}) must not create
    // storage for it.
    const now = Date.now();
    this.#lease.promote(now);
    this.#lease.expireIfDue(now);
    // A read settles the index both ways (the listing reads every entry it finds, so a stale
    // entry disappears the first time anyone lists it); transitions only ever add.
    await this.#index.sync(true);
    if (this.#pendingIndex.outOfStep) await this.#pendingIndex.sync();
    const lease = this.#store.lease();
    const key = this.#store.key ?? req.key;
    const hold = this.#holds.view(now);
    return {
      key,
      kind: lockKind(key) ?? "scope",
      identity: this.#store.identity,
      held: lease !== null,
      holder: lease?.holder ?? null,
      token: lease?.token ?? null,
      since: lease?.acquiredAt ?? null,
      expiresAt: lease?.expiresAt ?? null,
      heldBy: lease === null ? null : leaseHolderOf(lease, null),
      waiters: this.#lease.queue.all().map((w, at) => waiterView(w, at + 1, lease?.token ?? null)),
      ...(hold ? { hold } : {}),
      lastToken: this.#store.lastToken(),
      history: this.#store.history(),
    };
  }

  /** An admin's hold (lock-holds.ts): blocks every next grant until it ends or is lifted. */
  async hold(req: { key: string; reason: string; by: string; ttlMs: number }): Promise<Result<HoldOutcome>> {
    return this.#holds.set(req);
  }

  async unhold(req: { key: string; actor: string }): Promise<Result<HoldOutcome>> {
    return this.#holds.lift(req);
  }

  /**
   * Ownership of the object's items, for the holder of the current lease only: what it reads is
   * what it decides from, so a holder whose lease has lapsed must not read (or write) it.
   */
  async owners(req: {
    key: string;
    holder: string;
    token: number;
    items: OwnedItem[];
  }): Promise<Result<OwnershipView>> {
    const refused = this.#fence(req, Date.now());
    if (refused) return refused;
    return ok(this.#ownership.view(req.items));
  }

  /**
   * Changes ownership, fenced by the lease's token: a holder that lost its lease changes nothing.
   * The same step renews the lease, as renew does: a successful change is the round-trip check of
   * the lease at that instant, and its answer carries the new expiry (docs/design.md, "Lease
   * protocol"). `rebuilt` marks that ownership was rebuilt from the receipts' ledgers (done once,
   * on upgrade).
   */
  async changeOwners(req: {
    key: string;
    holder: string;
    token: number;
    changes: OwnerChange[];
    rebuilt?: boolean;
    locator?: Locator;
  }): Promise<Result<OwnerChangeAnswer>> {
    const now = Date.now();
    const refused = this.#fence(req, now);
    if (refused) return refused;
    const lease = this.#store.lease() as LeaseRow;
    const { expiresAt } = this.#store.extend(lease, lease.ttlMs, now, null);
    this.#index.syncLater();
    return ok({ ...(await this.#ownership.change(req, now)), expiresAt });
  }

  /** Every owned or foreign item and where each op's list lives, read-only (views, the sweep). */
  async ownership(_req: { key: string }): Promise<OwnershipRecord> {
    return this.#ownership.record();
  }

  /**
   * acquire for a run that brings the item changes it wants made here (combine-waiters.ts). Granted
   * at once, it writes them itself (the changes are ignored); queued, the holder may take and write
   * them, and the answer is then `{ grant: null, combined }`.
   */
  async acquireOrCombine(req: AcquireRequest): Promise<Result<GrantOrCombined>> {
    // More changes than one waiter may queue are not refused before the acquire decision (a free
    // lock is granted; a busy one queues the caller as a plain waiter that writes its own).
    const tooMany = (req.changes?.length ?? 0) > MAX_QUEUED_CHANGES;
    const changes = queuedChangesSchema.safeParse(tooMany ? [] : (req.changes ?? []));
    if (!changes.success) return fail("VALIDATION", `queued changes refused: ${changes.error.message}`);
    return this.#combining.acquireOrCombine(req, changes.data, (r) => this.#acquireStep(r));
  }

  /** The queued changes of every waiter no live lease took yet, now taken by this token. */
  async takeQueued(req: FencedRequest): Promise<Result<TakenQueue>> {
    const now = Date.now();
    const refused = this.#fence(req, now);
    if (refused) return refused;
    // A hold admits no new changes: the holder writes its own, waiters write theirs after it.
    if (this.#holds.view(now)) return ok({ waiters: [] });
    return ok(this.#combining.take(req.token));
  }

  /** The holder's report of a combined write, fenced by its token (combine-waiters.ts). */
  async reportCombined(req: ReportCombinedRequest): Promise<Result<void>> {
    const body = reportCombinedBodySchema.safeParse(req);
    if (!body.success) return fail("VALIDATION", `combined report refused: ${body.error.message}`);
    const now = Date.now();
    const refused = this.#fence(req, now);
    if (refused) return refused;
    this.#combining.report(req, body.data, now);
    return ok(undefined);
  }

  /** Writes still remembered, for the holder (docs/design.md, "Providers that forget a write"). */
  async recentWrites(req: FencedRequest): Promise<Result<RecentWrite[]>> {
    const now = Date.now();
    const refused = this.#fence(req, now);
    if (refused) return refused;
    return ok(liveRecentWrites(this.#sql, now));
  }

  /**
   * The same for a reader without the lease (docs/design.md, "Providers that forget a write"): the
   * first look of a run and the orphan search merge them over their read as the holder does.
   */
  async peekRecentWrites(_req: { key: string }): Promise<RecentWrite[]> {
    return recentWritesAt(this.#sql, Date.now());
  }

  /** Remembers what the holder's write made true, fenced by its token (recent-writes-store.ts). */
  async rememberWrites(req: FencedRequest & { writes: RecentWrite[] }): Promise<Result<void>> {
    const writes = rememberedWritesSchema.safeParse(req.writes);
    if (!writes.success) return fail("VALIDATION", `recent writes refused: ${writes.error.message}`);
    const refused = this.#fence(req, Date.now());
    if (refused) return refused;
    rememberWrites(this.#sql, writes.data);
    return ok(undefined);
  }

  /**
   * Fires at (or before) the live lease's expiry, and once more after the lock went free: that
   * firing deletes the held-lock index entry, which transitions leave in place while the lock is
   * busy (docs/storage.md).
   */
  override async alarm(): Promise<void> {
    // The firing alarm is no longer armed: whatever this call arms is the next one.
    this.#alarmAt = null;
    const now = Date.now();
    this.#lease.promote(now);
    this.#lease.expireIfDue(now);
    const lease = this.#store.lease();
    // A repeated or early alarm finds nothing due and only re-arms for the live lease.
    if (lease) this.#armAlarm(lease.expiresAt);
    // Within a lock-delay the waiters are handed the lock when it ends.
    const quiet = this.#store.quietUntil(now);
    if (quiet > now) this.#armAlarm(quiet);
    this.#combining.ageAnswers(now, lease);
    // A hold in force re-arms for its end; one that ended is recorded in the audit trail.
    const holdRetry = await this.#holds.settle(now);
    await this.#index.sync(true);
    // A holder that died keeping intents: the sweep finds its scope through the index entry.
    await this.#pendingIndex.sync();
    // A free lock whose index delete failed (or whose pending-intents entry is out of step) keeps
    // an alarm, so the write is retried without waiting for anyone to read or list it.
    const free = this.#store.lease() === null && this.#holds.view(Date.now()) === undefined;
    if (holdRetry || (free && (this.#index.marked || this.#pendingIndex.outOfStep))) {
      this.#armAlarm(Date.now() + INDEX_RETRY_MS);
    }
  }

  /**
   * Makes sure an alarm fires no later than `at`. An alarm armed earlier is kept (it fires, finds
   * nothing due and re-arms at the live expiry), so renewals and back-to-back grants do not each
   * write the alarm: a busy lock re-arms about once per TTL, not once per transition.
   */
  #armAlarm(at: number): void {
    if (this.#alarmAt !== null && this.#alarmAt <= at) return;
    this.#alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }

  /**
   * A read or a refused renewal that finds a lease ended (an expiry its alarm has not seen yet)
   * writes the pending-intents entry too, so the sweep finds a dead holder's intents without
   * relying on the alarm alone. An acquire does not: its new holder settles them itself.
   */
  #pendingIndexIfDue(): void {
    if (this.#pendingIndex.outOfStep) this.#pendingIndex.syncLater();
  }

  /** A grant, with the intents earlier holders left unsettled (scope locks; none: no field). */
  #withPending(result: Result<LeaseGrant>): Result<LeaseGrant> {
    if (!result.ok) return result;
    const pending = this.#pending.all();
    const intentSeq = this.#pending.lastSeq();
    return ok({
      ...result.value,
      ...(pending.length === 0 ? {} : { pendingIntents: pending }),
      ...(intentSeq === 0 ? {} : { intentSeq }),
    });
  }

  /** LOCK_LOST unless `holder` holds `token` now; ownership is only ever touched under the lease. */
  #fence(req: FencedRequest, now: number): Result<never> | null {
    this.#lease.promote(now);
    const lease = this.#store.lease();
    if (holdsToken(lease, req.holder, req.token, now)) return null;
    return lostRefusal(req, lease, now);
  }
}
