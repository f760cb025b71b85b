/**
 * One lease object per lock key (docs/design.md, "Lease protocol"). Every method reads the clock itself, so a
 * late, repeated or missing alarm only delays a grant; it never lets two holders overlap.
 *
 * A thin RPC class: it decides (lease-rules.ts) and composes the lease store, the waiter queue, the
 * combining waiters, the held-lock index and the feed notices. Its helpers are `#private`, so none
 * of them can be called over RPC.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../shared/env";
import { fail, ok, type Result } from "../shared/errors";
import { ownedObjectKey } from "../shared/lock-index";
import { lockKind } from "../shared/lock-keys";
import type {
  AcquireRequest,
  FencedRequest,
  LeaseLockApi,
  ReportCombinedRequest,
} from "../shared/rpc/lease-lock";
import {
  type GrantOrCombined,
  queuedChangesSchema,
  reportCombinedBodySchema,
  type TakenQueue,
} from "../shared/schemas/combine";
import type { LeaseGrant, LockState, ReleaseOutcome } from "../shared/schemas/lock";
import type {
  Locator,
  OwnedItem,
  OwnerChange,
  OwnershipRecord,
  OwnershipView,
} from "../shared/schemas/ownership";
import { CombineWaiters } from "./combine-waiters";
import { FeedNotices } from "./feed-notices";
import { HeldIndex } from "./held-index";
import {
  decideAcquire,
  endOfLease,
  heldRefusal,
  holdsToken,
  isExpired,
  type LeaseRow,
  lostRefusal,
} from "./lease-rules";
import { migrate } from "./lease-schema";
import { LeaseStore } from "./lease-store";
import { allLocators, allOwnership, applyOwnerChanges, readOwnership, saveLocator } from "./ownership-store";
import { type Waiter, WaiterQueue, waiterView } from "./waiter-queue";

export { HISTORY_LIMIT } from "./lease-store";

/** How soon the alarm retries an index delete that failed on a free lock. */
const INDEX_RETRY_MS = 30_000;

/** What acquire's decision step did: answered at once, or queued the caller (answered on grant or timeout). */
type AcquireStep =
  | { kind: "answered"; result: Result<LeaseGrant> }
  | { kind: "queued"; answer: Promise<Result<LeaseGrant>> };

function settled(step: AcquireStep): Promise<Result<LeaseGrant>> {
  return step.kind === "answered" ? Promise.resolve(step.result) : step.answer;
}

export class LeaseLock extends DurableObject<Env> implements LeaseLockApi {
  readonly #sql: SqlStorage;
  readonly #feed: FeedNotices;
  readonly #store: LeaseStore;
  readonly #queue: WaiterQueue;
  readonly #index: HeldIndex;
  readonly #combining: CombineWaiters;
  /** The armed alarm as this object last set or found it (null: none armed). */
  #alarmAt: number | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#feed = new FeedNotices(env, () => this.#store.key);
    const announce = (change: Parameters<FeedNotices["announce"]>[0]) => this.#feed.announce(change);
    const armAlarm = (at: number) => this.#armAlarm(at);
    this.#store = new LeaseStore(this.#sql, { armAlarm, announce });
    this.#queue = new WaiterQueue((waiter) => this.#giveUp(waiter));
    this.#index = new HeldIndex(env, ctx, this.#store);
    this.#combining = new CombineWaiters({
      sql: this.#sql,
      storage: ctx.storage,
      store: this.#store,
      queue: this.#queue,
      announce,
      armAlarm,
      heldRefusal: () => this.#held(this.#store.lease()),
    });
    ctx.blockConcurrencyWhile(async () => {
      migrate(this.#sql);
      this.#store.load();
      this.#alarmAt = await ctx.storage.getAlarm();
    });
  }

  async acquire(req: AcquireRequest): Promise<Result<LeaseGrant>> {
    return settled(this.#decideAcquire(req));
  }

  async renew(req: { key: string; holder: string; token: number }): Promise<Result<LeaseGrant>> {
    this.#store.remember(req.key, null);
    const now = Date.now();
    this.#promote(now);
    const lease = this.#store.lease();
    if (!holdsToken(lease, req.holder, req.token, now)) {
      this.#expireIfDue(now);
      this.#index.syncLater();
      return lostRefusal(req, lease, now);
    }
    const renewed = this.#store.grantOf(this.#store.extend(lease as LeaseRow, lease?.ttlMs ?? 0, now, null));
    // Renewals are the steady heartbeat of a held lock: each one also repairs a lost index add.
    this.#index.syncLater();
    return ok(renewed);
  }

  /**
   * Confirms a lease granted to a waiter, within its claim window; idempotent for a lease already
   * claimed. A renewal or re-acquire by the holder claims it too (the holder is evidently there).
   */
  async claim(req: { key: string; holder: string; token: number }): Promise<Result<LeaseGrant>> {
    return this.renew(req);
  }

  async release(req: { key: string; holder: string; token: number }): Promise<Result<ReleaseOutcome>> {
    this.#store.remember(req.key, null);
    const now = Date.now();
    const lease = this.#store.lease();
    if (lease === null) {
      this.#promote(now);
      return ok({ released: false, reason: "not-held", at: now });
    }
    if (lease.holder !== req.holder || lease.token !== req.token) {
      this.#promote(now);
      return ok({ released: false, reason: "stale-token", at: now });
    }
    // Releasing an expired lease is still the holder's own release (nobody else had it yet), but
    // the history says it came late.
    this.#store.free(now, isExpired(lease, now) ? "released-expired" : "released", lease, null);
    this.#promote(now);
    this.#index.syncLater();
    return ok({ released: true, reason: "released", at: now });
  }

  async forceRelease(req: { key: string; reason: string; actor: string }): Promise<Result<ReleaseOutcome>> {
    this.#store.remember(req.key, null);
    const now = Date.now();
    const lease = this.#store.lease();
    if (lease === null) return ok({ released: false, reason: "not-held", at: now });
    this.#store.free(now, "force-released", lease, `by ${req.actor}: ${req.reason}`);
    this.#promote(now);
    this.#index.syncLater();
    return ok({ released: true, reason: "released", at: now });
  }

  async read(req: { key: string }): Promise<LockState> {
    // No remember here: reading a key nobody ever locked (GET /v1/locks/{key}) must not create
    // storage for it.
    const now = Date.now();
    this.#promote(now);
    this.#expireIfDue(now);
    // A read settles the index both ways (the listing reads every entry it finds, so a stale
    // entry disappears the first time anyone lists it); transitions only ever add.
    await this.#index.sync(true);
    const lease = this.#store.lease();
    const key = this.#store.key ?? req.key;
    return {
      key,
      kind: lockKind(key) ?? "scope",
      identity: this.#store.identity,
      held: lease !== null,
      holder: lease?.holder ?? null,
      token: lease?.token ?? null,
      since: lease?.acquiredAt ?? null,
      expiresAt: lease?.expiresAt ?? null,
      waiters: this.#queue.all().map((w) => waiterView(w, lease?.token ?? null)),
      lastToken: this.#store.lastToken(),
      history: this.#store.history(),
    };
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
    return ok(this.#view(req.items));
  }

  /**
   * Changes ownership, fenced by the lease's token: a holder that lost its lease changes nothing.
   * `rebuilt` marks that ownership was rebuilt from the receipts' ledgers (done once, on upgrade).
   */
  async changeOwners(req: {
    key: string;
    holder: string;
    token: number;
    changes: OwnerChange[];
    rebuilt?: boolean;
    locator?: Locator;
  }): Promise<Result<OwnershipView>> {
    const now = Date.now();
    const refused = this.#fence(req, now);
    if (refused) return refused;
    applyOwnerChanges(this.#sql, req.changes, now);
    if (req.locator) saveLocator(this.#sql, req.locator);
    if (req.rebuilt && this.#store.meta("owners_rebuilt") !== "1") {
      this.#store.setMeta("owners_rebuilt", "1");
      // The sweep finds owned objects through this index (objects cannot be listed); written once.
      const key = this.#store.meta("key");
      if (key)
        await this.env.RECEIPTS.put(
          ownedObjectKey(key),
          JSON.stringify({ key, identity: this.#store.meta("identity") }),
        );
    }
    const items = req.changes.map(({ op, key }) => ({ op, key }));
    return ok(this.#view(items));
  }

  /** Every owned or foreign item and where each op's list lives, read-only (views, the sweep). */
  async ownership(_req: { key: string }): Promise<OwnershipRecord> {
    return { items: allOwnership(this.#sql), locators: allLocators(this.#sql) };
  }

  /**
   * acquire for a run that brings the item changes it wants made here (combine-waiters.ts). Granted
   * at once, it writes them itself (the changes are ignored); queued, the holder may take and write
   * them, and the answer is then `{ grant: null, combined }`.
   */
  async acquireOrCombine(req: AcquireRequest): Promise<Result<GrantOrCombined>> {
    const changes = queuedChangesSchema.safeParse(req.changes ?? []);
    if (!changes.success) return fail("VALIDATION", `queued changes refused: ${changes.error.message}`);
    return this.#combining.acquireOrCombine(req, changes.data, (r) => settled(this.#decideAcquire(r)));
  }

  /** The queued changes of every waiter no live lease took yet, now taken by this token. */
  async takeQueued(req: FencedRequest): Promise<Result<TakenQueue>> {
    const refused = this.#fence(req, Date.now());
    if (refused) return refused;
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

  /**
   * Fires at (or before) the live lease's expiry, and once more after the lock went free: that
   * firing deletes the held-lock index entry, which transitions leave in place while the lock is
   * busy (docs/storage.md).
   */
  override async alarm(): Promise<void> {
    // The firing alarm is no longer armed: whatever this call arms is the next one.
    this.#alarmAt = null;
    const now = Date.now();
    this.#promote(now);
    this.#expireIfDue(now);
    const lease = this.#store.lease();
    // A repeated or early alarm finds nothing due and only re-arms for the live lease.
    if (lease) this.#armAlarm(lease.expiresAt);
    this.#combining.ageAnswers(now, lease);
    await this.#index.sync(true);
    // A free lock whose index delete failed keeps an alarm, so the delete is retried without
    // waiting for anyone to read or list it.
    if (this.#store.lease() === null && this.#index.marked) {
      this.#armAlarm(Date.now() + INDEX_RETRY_MS);
    }
  }

  // --- state transitions (synchronous: no other call interleaves inside one) ---

  /**
   * acquire's decision step, synchronous from reading the lease to applying the decision: the
   * lease is granted, renewed or refused, or the caller is in the queue, when this returns.
   */
  #decideAcquire(req: AcquireRequest): AcquireStep {
    this.#store.remember(req.key, req.identity ?? null);
    const now = Date.now();
    this.#promote(now);
    const lease = this.#store.lease();
    const decision = decideAcquire(lease, req.holder, now, this.#queue.length);
    switch (decision.kind) {
      case "reacquire": {
        // The holder asking again is alive: this also claims a grant it has not confirmed yet.
        const renewed = this.#store.extend(lease as LeaseRow, req.ttlMs, now, "re-acquire");
        this.#index.syncLater();
        return { kind: "answered", result: ok(this.#store.grantOf(renewed)) };
      }
      case "grant":
        return { kind: "answered", result: ok(this.#grant(req.holder, req.ttlMs, now, "acquired")) };
      case "takeover": {
        const grant = this.#grant(req.holder, req.ttlMs, now, "taken-over", decision.previous);
        return { kind: "answered", result: ok(grant) };
      }
      case "busy": {
        if (!req.wait) return { kind: "answered", result: this.#held(decision.lease) };
        const queued = this.#queue.find(req.holder);
        // A client retrying after a lost answer re-attaches to its place instead of queueing twice.
        if (queued) return { kind: "queued", answer: this.#queue.reattach(queued, req, now) };
        const answer = this.#queue.enqueue(req, now);
        this.#feed.announce("waiters");
        return { kind: "queued", answer };
      }
    }
  }

  /** Expire a due lease and hand the lock to the first waiter; repeated while grants are due. */
  #promote(now: number): void {
    let lease = this.#store.lease();
    if (lease && isExpired(lease, now) && this.#queue.length > 0) {
      this.#end(now, lease);
      lease = null;
    }
    if (lease === null) {
      const next = this.#queue.next();
      if (next) {
        // Provisional until claimed: a waiter whose caller has gone never claims, and the lock
        // lapses to the next waiter after the claim window instead of after a whole TTL.
        const grant = this.#store.write(
          next.holder,
          next.ttlMs,
          now,
          "acquired",
          "granted to waiter",
          next.claimWindowMs,
        );
        for (const resolve of next.resolvers) resolve(ok(grant));
        this.#index.syncLater();
      }
    }
  }

  #expireIfDue(now: number): void {
    const lease = this.#store.lease();
    if (lease && isExpired(lease, now)) this.#end(now, lease);
  }

  /** Frees an expired lease, recording whether it was an unclaimed grant that lapsed. */
  #end(now: number, lease: LeaseRow): void {
    const lapsed = endOfLease(lease) === "claim-lapsed";
    this.#store.free(
      now,
      endOfLease(lease),
      lease,
      lapsed ? "granted to a waiter that never claimed it" : null,
    );
  }

  #grant(
    holder: string,
    ttlMs: number,
    now: number,
    transition: "acquired" | "taken-over",
    previous?: LeaseRow,
  ): LeaseGrant {
    if (previous) {
      this.#store.record(
        now,
        endOfLease(previous),
        previous.holder,
        previous.token,
        `taken over by ${holder}`,
      );
      this.#store.bump("takeovers");
    }
    const note = previous ? `previous holder ${previous.holder} (token ${previous.token})` : null;
    const grant = this.#store.write(holder, ttlMs, now, transition, note);
    this.#index.syncLater();
    return grant;
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

  /** A waiter's timeout: check the clock first, since an expiry may be due that no alarm has run. */
  #giveUp(waiter: Waiter): void {
    this.#promote(Date.now());
    if (!this.#queue.remove(waiter)) return; // already granted
    this.#feed.announce("waiters");
    const refusal = this.#held(this.#store.lease());
    for (const resolve of waiter.resolvers) resolve(refusal);
  }

  #held(lease: LeaseRow | null): Result<never> {
    return heldRefusal(this.#store.key ?? "", lease);
  }

  /** LOCK_LOST unless `holder` holds `token` now; ownership is only ever touched under the lease. */
  #fence(req: FencedRequest, now: number): Result<never> | null {
    this.#promote(now);
    const lease = this.#store.lease();
    if (holdsToken(lease, req.holder, req.token, now)) return null;
    return lostRefusal(req, lease, now);
  }

  #view(items: OwnedItem[]): OwnershipView {
    return {
      rebuilt: this.#store.meta("owners_rebuilt") === "1",
      listedOps: allLocators(this.#sql).map((l) => l.op),
      items: readOwnership(this.#sql, items),
    };
  }
}
