/**
 * One lease object per lock key (docs/design.md, "Lease protocol"). Every method reads the clock itself, so a
 * late, repeated or missing alarm only delays a grant; it never lets two holders overlap.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../shared/env";
import { fail, ok, type Result } from "../shared/errors";
import { DEFAULT_WAIT_TIMEOUT_MS } from "../shared/lease-defaults";
import { heldIndexKey, ownedObjectKey } from "../shared/lock-index";
import { lockKind } from "../shared/lock-keys";
import type {
  AcquireRequest,
  FencedRequest,
  LeaseLockApi,
  ReportCombinedRequest,
} from "../shared/rpc/lease-lock";
import {
  type CombinedAnswer,
  type GrantOrCombined,
  MAX_COMBINE_REPORTS,
  type QueuedWaiter,
  queuedChangesSchema,
  reportCombinedBodySchema,
  type TakenQueue,
} from "../shared/schemas/combine";
import type {
  HistoryEntry,
  LeaseGrant,
  LockState,
  ReleaseOutcome,
  Transition,
  WaiterView,
} from "../shared/schemas/lock";
import type {
  Locator,
  OwnedItem,
  OwnerChange,
  OwnershipRecord,
  OwnershipView,
} from "../shared/schemas/ownership";
import { type CombineSlot, coversAll, isOffered, isTaken, mergeOutcomes, newSlot } from "./combine-queue";
import { deleteAnswer, pruneAnswers, readAnswer, storeAnswer } from "./combine-store";
import {
  claimWindowOf,
  decideAcquire,
  endOfLease,
  holdsToken,
  isExpired,
  type LeaseRow,
} from "./lease-rules";
import { migrate } from "./lease-schema";
import { announceLockChange, type LockChange } from "./lock-feed";
import { allLocators, allOwnership, applyOwnerChanges, readOwnership, saveLocator } from "./ownership-store";

export const HISTORY_LIMIT = 50;
/** Lock-feed notices within this window are sent as one (the latest). */
const FEED_COALESCE_MS = 20;
/** How soon the alarm retries an index delete that failed on a free lock. */
const INDEX_RETRY_MS = 30_000;

interface Waiter {
  holder: string;
  ttlMs: number;
  claimWindowMs: number;
  since: number;
  /** Every open call of this holder: the same holder asking again re-attaches to its place. */
  resolvers: Array<(result: Result<LeaseGrant>) => void>;
  giveUpAt: number;
  timer: ReturnType<typeof setTimeout>;
  /** Write combining: the changes this waiter brought (acquireOrCombine), and what became of them. */
  combine?: CombineSlot;
}

export class LeaseLock extends DurableObject<Env> implements LeaseLockApi {
  readonly #sql: SqlStorage;
  // Waiting callers live in memory: the object is not evicted while their requests are open.
  readonly #waiters: Waiter[] = [];
  #indexSync: Promise<void> = Promise.resolve();
  #indexQueued = false;
  /** The queued index sync may also delete an entry (a read or the alarm asked for it). */
  #indexExact = false;
  /** The armed alarm as this object last set or found it (null: none armed). */
  #alarmAt: number | null = null;
  /** The lock-feed change waiting to be sent, and whether a send is scheduled. */
  #feedChange: LockChange | null = null;
  #feedTimer: ReturnType<typeof setTimeout> | null = null;
  /** meta.key and meta.identity, which never change once written: kept to spare a read per call. */
  #key: string | null = null;
  #identity: string | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => {
      migrate(this.#sql);
      this.#key = this.#meta("key");
      this.#identity = this.#meta("identity");
      this.#alarmAt = await ctx.storage.getAlarm();
    });
  }

  async acquire(req: AcquireRequest): Promise<Result<LeaseGrant>> {
    this.#remember(req.key, req.identity ?? null);
    const now = Date.now();
    this.#promote(now);
    const lease = this.#lease();
    const decision = decideAcquire(lease, req.holder, now, this.#waiters.length);
    switch (decision.kind) {
      case "reacquire": {
        // The holder asking again is alive: this also claims a grant it has not confirmed yet.
        const renewed = this.#extend(lease as LeaseRow, req.ttlMs, now, "re-acquire");
        this.#syncIndexLater();
        return ok(this.#grantOf(renewed));
      }
      case "grant":
        return ok(await this.#grant(req.holder, req.ttlMs, now, "acquired"));
      case "takeover":
        return ok(await this.#grant(req.holder, req.ttlMs, now, "taken-over", decision.previous));
      case "busy": {
        if (!req.wait) return this.#held(decision.lease);
        const queued = this.#waiters.find((w) => w.holder === req.holder);
        // A client retrying after a lost answer re-attaches to its place instead of queueing twice.
        if (queued) return this.#reattach(queued, req, now);
        return this.#enqueue(req, now);
      }
    }
  }

  async renew(req: { key: string; holder: string; token: number }): Promise<Result<LeaseGrant>> {
    this.#remember(req.key, null);
    const now = Date.now();
    this.#promote(now);
    const lease = this.#lease();
    if (!holdsToken(lease, req.holder, req.token, now)) {
      this.#expireIfDue(now);
      this.#syncIndexLater();
      return fail(
        "LOCK_LOST",
        `lease on ${req.key} (token ${req.token}) is no longer held by ${req.holder}`,
        {
          lock: req.key,
          holder: lease && !isExpired(lease, now) ? lease.holder : null,
        },
      );
    }
    const renewed = this.#grantOf(this.#extend(lease as LeaseRow, lease?.ttlMs ?? 0, now, null));
    // Renewals are the steady heartbeat of a held lock: each one also repairs a lost index add.
    this.#syncIndexLater();
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
    this.#remember(req.key, null);
    const now = Date.now();
    const lease = this.#lease();
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
    this.#free(now, isExpired(lease, now) ? "released-expired" : "released", lease, null);
    this.#promote(now);
    this.#syncIndexLater();
    return ok({ released: true, reason: "released", at: now });
  }

  async forceRelease(req: { key: string; reason: string; actor: string }): Promise<Result<ReleaseOutcome>> {
    this.#remember(req.key, null);
    const now = Date.now();
    const lease = this.#lease();
    if (lease === null) return ok({ released: false, reason: "not-held", at: now });
    this.#free(now, "force-released", lease, `by ${req.actor}: ${req.reason}`);
    this.#promote(now);
    this.#syncIndexLater();
    return ok({ released: true, reason: "released", at: now });
  }

  async read(req: { key: string }): Promise<LockState> {
    // No #remember here: reading a key nobody ever locked (GET /v1/locks/{key}) must not create
    // storage for it.
    const now = Date.now();
    this.#promote(now);
    this.#expireIfDue(now);
    // A read settles the index both ways (the listing reads every entry it finds, so a stale
    // entry disappears the first time anyone lists it); transitions only ever add.
    await this.#syncIndex(true);
    const lease = this.#lease();
    const key = this.#key ?? req.key;
    return {
      key,
      kind: lockKind(key) ?? "scope",
      identity: this.#identity,
      held: lease !== null,
      holder: lease?.holder ?? null,
      token: lease?.token ?? null,
      since: lease?.acquiredAt ?? null,
      expiresAt: lease?.expiresAt ?? null,
      waiters: this.#waiters.map((w) => this.#waiterView(w, lease)),
      lastToken: this.#lastToken(),
      history: this.#history(),
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
    if (req.rebuilt && this.#meta("owners_rebuilt") !== "1") {
      this.#setMeta("owners_rebuilt", "1");
      // The sweep finds owned objects through this index (objects cannot be listed); written once.
      const key = this.#meta("key");
      if (key)
        await this.env.RECEIPTS.put(
          ownedObjectKey(key),
          JSON.stringify({ key, identity: this.#meta("identity") }),
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
    const lease = this.#lease();
    // A repeated or early alarm finds nothing due and only re-arms for the live lease.
    if (lease) this.#armAlarm(lease.expiresAt);
    this.#ageAnswers(now, lease);
    await this.#syncIndex(true);
    // A free lock whose index delete failed keeps an alarm, so the delete is retried without
    // waiting for anyone to read or list it.
    if (this.#lease() === null && this.#meta("indexed") === "1") {
      this.#armAlarm(Date.now() + INDEX_RETRY_MS);
    }
  }

  // --- state transitions (synchronous: no other call interleaves inside one) ---

  /** Expire a due lease and hand the lock to the first waiter; repeated while grants are due. */
  #promote(now: number): void {
    let lease = this.#lease();
    if (lease && isExpired(lease, now) && this.#waiters.length > 0) {
      this.#end(now, lease);
      lease = null;
    }
    if (lease === null) {
      const next = this.#waiters.shift();
      if (next) {
        clearTimeout(next.timer);
        // Provisional until claimed: a waiter whose caller has gone never claims, and the lock
        // lapses to the next waiter after the claim window instead of after a whole TTL.
        const grant = this.#write(
          next.holder,
          next.ttlMs,
          now,
          "acquired",
          "granted to waiter",
          next.claimWindowMs,
        );
        for (const resolve of next.resolvers) resolve(ok(grant));
        this.#syncIndexLater();
      }
    }
  }

  #expireIfDue(now: number): void {
    const lease = this.#lease();
    if (lease && isExpired(lease, now)) this.#end(now, lease);
  }

  /** Frees an expired lease, recording whether it was an unclaimed grant that lapsed. */
  #end(now: number, lease: LeaseRow): void {
    const lapsed = endOfLease(lease) === "claim-lapsed";
    this.#free(now, endOfLease(lease), lease, lapsed ? "granted to a waiter that never claimed it" : null);
  }

  async #grant(
    holder: string,
    ttlMs: number,
    now: number,
    transition: "acquired" | "taken-over",
    previous?: LeaseRow,
  ): Promise<LeaseGrant> {
    if (previous) {
      this.#record(now, endOfLease(previous), previous.holder, previous.token, `taken over by ${holder}`);
      this.#bump("takeovers");
    }
    const note = previous ? `previous holder ${previous.holder} (token ${previous.token})` : null;
    const grant = this.#write(holder, ttlMs, now, transition, note);
    this.#syncIndexLater();
    return grant;
  }

  #write(
    holder: string,
    ttlMs: number,
    now: number,
    transition: Transition,
    note: string | null,
    claimWindowMs: number | null = null,
  ): LeaseGrant {
    // The fencing token is persisted before it is handed out, so it survives eviction and is never reused.
    const token = this.#lastToken() + 1;
    this.#setMeta("last_token", String(token));
    // An unclaimed grant is only valid until its claim deadline; the claim extends it to the TTL.
    const pending = claimWindowMs !== null;
    const expiresAt = now + (pending ? Math.min(ttlMs, claimWindowMs) : ttlMs);
    this.#sql.exec(
      `INSERT INTO lease (id, holder, token, acquired_at, expires_at, ttl_ms, claim_pending)
       VALUES (1, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, token = excluded.token,
         acquired_at = excluded.acquired_at, expires_at = excluded.expires_at, ttl_ms = excluded.ttl_ms,
         claim_pending = excluded.claim_pending`,
      holder,
      token,
      now,
      expiresAt,
      ttlMs,
      pending ? 1 : 0,
    );
    this.#record(now, transition, holder, token, note);
    this.#armAlarm(expiresAt);
    this.#announce("held");
    const grant: LeaseGrant = { key: this.#key ?? "", holder, token, acquiredAt: now, expiresAt };
    return pending ? { ...grant, claimBy: expiresAt } : grant;
  }

  /** Renews (or claims, if the grant was still provisional) the live lease of its own holder. */
  #extend(lease: LeaseRow, ttlMs: number, now: number, note: string | null): LeaseRow {
    const expiresAt = Math.max(lease.expiresAt, now + ttlMs);
    this.#sql.exec(
      "UPDATE lease SET expires_at = ?, ttl_ms = ?, claim_pending = 0 WHERE id = 1",
      expiresAt,
      ttlMs,
    );
    this.#record(now, lease.claimPending ? "claimed" : "renewed", lease.holder, lease.token, note);
    this.#armAlarm(expiresAt);
    return { ...lease, expiresAt, ttlMs, claimPending: false };
  }

  #free(now: number, transition: Transition, lease: LeaseRow, note: string | null): void {
    this.#sql.exec("DELETE FROM lease WHERE id = 1");
    this.#record(now, transition, lease.holder, lease.token, note);
    // The alarm stays armed: when it fires on the free lock it deletes the index entry (and ages
    // out stored combining answers), so a lock released and taken again before then pays no R2
    // write and no alarm write at all.
    this.#announce("free");
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

  #enqueue(req: AcquireRequest, now: number): Promise<Result<LeaseGrant>> {
    const timeoutMs = Math.max(0, req.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS);
    return new Promise<Result<LeaseGrant>>((resolve) => {
      const waiter: Waiter = {
        holder: req.holder,
        ttlMs: req.ttlMs,
        claimWindowMs: claimWindowOf(req.claimWindowMs),
        since: now,
        resolvers: [resolve],
        giveUpAt: now + timeoutMs,
        timer: setTimeout(() => this.#giveUp(waiter), timeoutMs),
      };
      this.#waiters.push(waiter);
      this.#announce("waiters");
    });
  }

  /**
   * The same holder waiting again (its first call's answer was lost, or its client retried): it
   * keeps its place, takes the newer TTL and claim window, and waits until the later of the two
   * timeouts; every open call of it gets the same answer.
   */
  #reattach(waiter: Waiter, req: AcquireRequest, now: number): Promise<Result<LeaseGrant>> {
    waiter.ttlMs = req.ttlMs;
    waiter.claimWindowMs = claimWindowOf(req.claimWindowMs);
    const giveUpAt = now + Math.max(0, req.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS);
    if (giveUpAt > waiter.giveUpAt) {
      clearTimeout(waiter.timer);
      waiter.giveUpAt = giveUpAt;
      waiter.timer = setTimeout(() => this.#giveUp(waiter), giveUpAt - now);
    }
    return new Promise<Result<LeaseGrant>>((resolve) => waiter.resolvers.push(resolve));
  }

  /** A waiter's timeout: check the clock first, since an expiry may be due that no alarm has run. */
  #giveUp(waiter: Waiter): void {
    this.#promote(Date.now());
    const at = this.#waiters.indexOf(waiter);
    if (at < 0) return; // already granted
    this.#waiters.splice(at, 1);
    this.#announce("waiters");
    const refusal = this.#held(this.#lease());
    for (const resolve of waiter.resolvers) resolve(refusal);
  }

  #held(lease: LeaseRow | null): Result<never> {
    const key = this.#key ?? "";
    if (!lease) return fail("LOCK_HELD", `${key} is being handed to a waiting run`, { lock: key });
    return fail(
      "LOCK_HELD",
      `${key} is held by ${lease.holder} until ${new Date(lease.expiresAt).toISOString()}`,
      {
        lock: key,
        holder: lease.holder,
        expiresAt: lease.expiresAt,
      },
    );
  }

  /**
   * Tell open dashboards (durable-objects/lock-feed.ts), never awaited. Changes within
   * FEED_COALESCE_MS go out as one notice carrying the latest: a dashboard re-fetches what it shows
   * anyway, and a burst of transitions costs one call to the feed instead of one each.
   */
  #announce(change: LockChange): void {
    this.#feedChange = change;
    if (this.#feedTimer !== null) return;
    this.#feedTimer = setTimeout(() => {
      this.#feedTimer = null;
      const latest = this.#feedChange;
      this.#feedChange = null;
      if (this.#key && latest) announceLockChange(this.env, this.#key, latest);
    }, FEED_COALESCE_MS);
  }

  // --- the held-lock index (docs/storage.md) ---

  /**
   * The index is a listing aid, not part of the lease: transitions answer from the object's own
   * storage and leave the R2 write running behind them. They only ever add a missing entry (a lock
   * that is already indexed costs no R2 call); the entry of a freed lock is deleted by the alarm or
   * the next read. A failed or lost write is repaired by the next transition, read or alarm
   * (docs/storage.md, "When an index update is lost").
   */
  #syncIndexLater(): void {
    this.ctx.waitUntil(this.#syncIndex(false));
  }

  /**
   * Bring the R2 index entry in line with the current state (`exact`: also delete the entry of a
   * free lock). Calls are chained and each reads the state when it runs, so the last one to finish
   * always reflects the latest transition.
   */
  #syncIndex(exact: boolean): Promise<void> {
    if (exact) this.#indexExact = true;
    // One queued sync covers every transition before it starts (it reads the state when it runs),
    // so a burst of transitions costs at most one R2 write in flight and one queued behind it.
    if (this.#indexQueued) return this.#indexSync;
    this.#indexQueued = true;
    this.#indexSync = this.#indexSync
      .then(async () => {
        this.#indexQueued = false;
        const deleteFree = this.#indexExact;
        this.#indexExact = false;
        const key = this.#key;
        if (!key) return;
        const held = this.#lease() !== null;
        const marked = this.#meta("indexed") === "1";
        if (held === marked || (!held && !deleteFree)) return;
        try {
          if (held) {
            const body = JSON.stringify({ key, kind: lockKind(key), identity: this.#identity });
            await this.env.RECEIPTS.put(heldIndexKey(key), body);
          } else {
            await this.env.RECEIPTS.delete(heldIndexKey(key));
          }
          this.#setMeta("indexed", held ? "1" : "0");
        } catch (err) {
          // A lost index update is repaired by the next transition or alarm; the listing re-reads
          // every indexed lock from its own object, so a stale entry is never shown as held.
          console.warn(`lock index update for ${key} failed: ${String(err)}`);
        }
      })
      // Nothing above is meant to throw, but a rejected link would skip every later sync.
      .catch((err) => {
        this.#indexQueued = false;
        console.warn(`lock index sync failed: ${String(err)}`);
      });
    return this.#indexSync;
  }

  #view(items: OwnedItem[]): OwnershipView {
    return {
      rebuilt: this.#meta("owners_rebuilt") === "1",
      listedOps: allLocators(this.#sql).map((l) => l.op),
      items: readOwnership(this.#sql, items),
    };
  }

  /** LOCK_LOST unless `holder` holds `token` now; ownership is only ever touched under the lease. */
  #fence(req: { key: string; holder: string; token: number }, now: number): Result<never> | null {
    this.#promote(now);
    const lease = this.#lease();
    if (holdsToken(lease, req.holder, req.token, now)) return null;
    return fail("LOCK_LOST", `lease on ${req.key} (token ${req.token}) is no longer held by ${req.holder}`, {
      lock: req.key,
      holder: lease && !isExpired(lease, now) ? lease.holder : null,
    });
  }

  // --- write combining (docs/design.md, "Write combining: the lock object's side") ---

  /**
   * acquire for a run that brings the item changes it wants made here. Granted at once, it writes
   * them itself (the changes are ignored); queued, the holder may take and write them, and the
   * answer is then `{ grant: null, combined }`. A waiter re-joining after its answer was lost (an
   * object restart) finds the stored answer.
   */
  async acquireOrCombine(req: AcquireRequest): Promise<Result<GrantOrCombined>> {
    const changes = queuedChangesSchema.safeParse(req.changes ?? []);
    if (!changes.success) return fail("VALIDATION", `queued changes refused: ${changes.error.message}`);
    const now = Date.now();
    pruneAnswers(this.#sql, now);
    const stored = readAnswer(this.#sql, req.holder);
    if (stored?.complete && coversAll(changes.data, stored.answer.outcomes)) {
      deleteAnswer(this.#sql, req.holder);
      // Still queued under a plain acquire of the same holder: that call is done with too.
      const queued = this.#waiters.find((w) => w.holder === req.holder);
      if (queued) this.#combined(queued, stored.answer);
      return ok({ grant: null, combined: stored.answer });
    }
    // acquire runs synchronously up to its first await: a busy waiter is in the queue on return.
    const pending = this.acquire({ ...req, changes: undefined });
    const waiter = this.#waiters.find((w) => w.holder === req.holder);
    if (!waiter) return this.#withCombined(req.holder, await pending);
    // A re-attaching waiter keeps what it brought the first time (a holder may have taken it).
    const slot = waiter.combine ?? newSlot(changes.data);
    waiter.combine = slot;
    // Part of it was written already (reported before a restart): the rest is its own to write.
    if (stored) slot.settled = true;
    return new Promise<Result<GrantOrCombined>>((resolve) => {
      slot.done.push((combined) => resolve(ok({ grant: null, combined })));
      void pending.then((result) => resolve(this.#withCombined(req.holder, result)));
    });
  }

  /**
   * The queued changes of every waiter no live lease took yet, now taken by this token: the holder
   * writes them with its own and reports. Changes it took and never reports are untaken when its
   * lease ends, and their waiters go on as without combining.
   */
  async takeQueued(req: FencedRequest): Promise<Result<TakenQueue>> {
    const refused = this.#fence(req, Date.now());
    if (refused) return refused;
    const waiters: QueuedWaiter[] = [];
    for (const w of this.#waiters) {
      if (waiters.length >= MAX_COMBINE_REPORTS) break;
      if (!w.combine || !isOffered(w.combine, req.token)) continue;
      w.combine.takenBy = req.token;
      waiters.push({ waiter: w.holder, changes: w.combine.changes });
    }
    if (waiters.length > 0) this.#announce("waiters");
    return ok({ waiters });
  }

  /**
   * The holder's report of a combined write, fenced by its token. Ownership and every waiter's
   * answer are stored in one transaction, then the waiting calls are answered: a waiter with every
   * change written leaves the queue (`combined` in the history, never a grant); one with changes
   * returned keeps its place, untaken, and its later grant carries what was written for it.
   */
  async reportCombined(req: ReportCombinedRequest): Promise<Result<void>> {
    const body = reportCombinedBodySchema.safeParse(req);
    if (!body.success) return fail("VALIDATION", `combined report refused: ${body.error.message}`);
    const now = Date.now();
    const refused = this.#fence(req, now);
    if (refused) return refused;
    const { reports, ownerChanges = [], locator } = body.data;
    const answered: Array<{ waiter: Waiter; answer: CombinedAnswer | null; complete: boolean }> = [];
    this.ctx.storage.transactionSync(() => {
      applyOwnerChanges(this.#sql, ownerChanges, now);
      if (locator) saveLocator(this.#sql, locator);
      for (const report of reports) {
        const waiter = this.#waiters.find((w) => w.holder === report.waiter);
        if (report.applied.length === 0) {
          if (waiter) answered.push({ waiter, answer: null, complete: false });
          continue;
        }
        const earlier = readAnswer(this.#sql, report.waiter);
        const outcomes = mergeOutcomes(earlier?.answer.outcomes ?? [], report.applied);
        const answer = { by: req.holder, token: req.token, outcomes };
        // Complete only if nothing came back and, for a waiter here, every change it brought has
        // an outcome (a waiter absent now is checked again against what it brings when it re-joins).
        const complete =
          report.returned.length === 0 &&
          (waiter?.combine ? coversAll(waiter.combine.changes, outcomes) : earlier?.complete !== false);
        storeAnswer(this.#sql, report.waiter, { answer, complete, at: now });
        const returned = report.returned.length > 0 ? `; ${report.returned.length} returned to it` : "";
        this.#record(now, "combined", report.waiter, req.token, `written by ${req.holder}${returned}`);
        if (waiter) answered.push({ waiter, answer, complete });
      }
    });
    for (const { waiter, answer, complete } of answered) {
      const slot = waiter.combine;
      if (answer && complete && slot && slot.done.length > 0) {
        this.#combined(waiter, answer);
        continue;
      }
      // Changes came back: the waiter writes them under its own grant, in its turn.
      if (slot) {
        slot.settled = true;
        slot.takenBy = null;
      }
    }
    this.#announce("waiters");
    return ok(undefined);
  }

  /** Answers every open call of a waiter whose changes were all written, and drops it from the queue. */
  #combined(waiter: Waiter, answer: CombinedAnswer): void {
    const at = this.#waiters.indexOf(waiter);
    if (at >= 0) this.#waiters.splice(at, 1);
    clearTimeout(waiter.timer);
    deleteAnswer(this.#sql, waiter.holder);
    for (const done of waiter.combine?.done ?? []) done(answer);
    // A plain acquire of the same holder (already answered above when it shares the call) cannot
    // say "written for you": it is told the lock is held, as after a wait timeout.
    const refusal = this.#held(this.#lease());
    for (const resolve of waiter.resolvers) resolve(refusal);
  }

  /** A grant (or refusal) for a waiter that brought changes, with what was written for it so far. */
  #withCombined(holder: string, result: Result<LeaseGrant>): Result<GrantOrCombined> {
    if (!result.ok) return result;
    const stored = readAnswer(this.#sql, holder);
    if (stored) deleteAnswer(this.#sql, holder);
    return ok({ grant: result.value, combined: stored?.answer ?? null });
  }

  #waiterView(w: Waiter, lease: LeaseRow | null): WaiterView {
    const view: WaiterView = { holder: w.holder, since: w.since };
    if (!w.combine) return view;
    return { ...view, changes: w.combine.changes.length, taken: isTaken(w.combine, lease?.token ?? null) };
  }

  /** The alarm's part: age out stored answers, and keep an alarm for the rest while the lock is free. */
  #ageAnswers(now: number, lease: LeaseRow | null): void {
    const due = pruneAnswers(this.#sql, now);
    if (due !== null && lease === null) this.#armAlarm(due);
  }

  // --- storage helpers ---

  #remember(key: string, identity: string | null): void {
    if (this.#key === null) {
      this.#setMeta("key", key);
      this.#key = key;
    }
    if (identity && this.#identity === null) {
      this.#setMeta("identity", identity);
      this.#identity = identity;
    }
  }

  #lease(): LeaseRow | null {
    const rows = this.#sql
      .exec<{
        holder: string;
        token: number;
        acquired_at: number;
        expires_at: number;
        ttl_ms: number;
        claim_pending: number;
      }>("SELECT holder, token, acquired_at, expires_at, ttl_ms, claim_pending FROM lease WHERE id = 1")
      .toArray();
    const row = rows[0];
    if (!row) return null;
    return {
      holder: row.holder,
      token: row.token,
      acquiredAt: row.acquired_at,
      expiresAt: row.expires_at,
      ttlMs: row.ttl_ms,
      claimPending: row.claim_pending === 1,
    };
  }

  #grantOf(lease: LeaseRow): LeaseGrant {
    return {
      key: this.#key ?? "",
      holder: lease.holder,
      token: lease.token,
      acquiredAt: lease.acquiredAt,
      expiresAt: lease.expiresAt,
    };
  }

  #record(at: number, transition: Transition, holder: string, token: number, note: string | null): void {
    this.#sql.exec(
      "INSERT INTO history (at, transition, holder, token, note) VALUES (?, ?, ?, ?, ?)",
      at,
      transition,
      holder,
      token,
      note,
    );
    this.#sql.exec("DELETE FROM history WHERE seq <= (SELECT MAX(seq) FROM history) - ?", HISTORY_LIMIT);
  }

  #history(): HistoryEntry[] {
    return this.#sql
      .exec<{ at: number; transition: Transition; holder: string; token: number; note: string | null }>(
        "SELECT at, transition, holder, token, note FROM history ORDER BY seq",
      )
      .toArray()
      .map(({ note, ...rest }) => (note === null ? rest : { ...rest, note }));
  }

  #meta(k: string): string | null {
    const row = this.#sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = ?", k).toArray()[0];
    return row ? row.v : null;
  }

  #setMeta(k: string, v: string): void {
    this.#sql.exec(
      "INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
      k,
      v,
    );
  }

  #bump(k: string): void {
    this.#setMeta(k, String(Number(this.#meta(k) ?? "0") + 1));
  }

  #lastToken(): number {
    return Number(this.#meta("last_token") ?? "0");
  }
}
