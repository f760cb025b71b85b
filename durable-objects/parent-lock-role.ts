/**
 * The parent lock's role over the lease core (docs/design.md, "Ownership of shared entries", "Write
 * combining: the lock object's side", "Providers that forget a write"): ownership of the object's
 * items, the changes waiters queue for the holder to write, and the writes it remembers. Every call
 * but the read-only `ownership` is served only to the live holder (the core's fence).
 */
import type { Env } from "../shared/env";
import { fail, ok, type Result } from "../shared/errors";
import type { AcquireRequest, FencedRequest, ReportCombinedRequest } from "../shared/rpc/lease-lock";
import {
  type GrantOrCombined,
  MAX_QUEUED_CHANGES,
  queuedChangesSchema,
  reportCombinedBodySchema,
  type TakenQueue,
} from "../shared/schemas/combine";
import type { LeaseGrant } from "../shared/schemas/lock";
import type {
  Locator,
  OwnedItem,
  OwnerChange,
  OwnerChangeAnswer,
  OwnershipRecord,
  OwnershipShares,
  OwnershipView,
} from "../shared/schemas/ownership";
import type { RecentWrite } from "../shared/schemas/recent-writes";
import { CombineWaiters } from "./combine-waiters";
import type { CombineContext, ParentRoleContext } from "./lease-core";
import type { LeaseRow } from "./lease-rules";
import type { Effect } from "./lock-effects";
import { LockOwnership } from "./lock-ownership";
import {
  liveRecentWrites,
  recentWritesAt,
  rememberedWritesSchema,
  rememberWrites,
} from "./recent-writes-store";

export class ParentLockRole {
  readonly #core: ParentRoleContext & CombineContext;
  readonly #ownership: LockOwnership;
  readonly #combining: CombineWaiters;

  constructor(core: ParentRoleContext & CombineContext, env: Env) {
    this.#core = core;
    this.#ownership = new LockOwnership(core.sql, core.store, env);
    this.#combining = new CombineWaiters(core);
  }

  /**
   * A (claimed) grant with the ownership view of `items`, read in the same synchronous step as the
   * grant: nobody but the new holder can change it before its first call. A grant to a waiter is
   * provisional: its claim carries the items and the view.
   */
  withOwnership(items: OwnedItem[] | undefined): (result: Result<LeaseGrant>) => Result<LeaseGrant> {
    return (result) => {
      if (!result.ok || items === undefined || result.value.claimBy !== undefined) return result;
      return ok({ ...result.value, ownership: this.#ownership.view(items, { shares: true }) });
    };
  }

  /**
   * A combining holder's grant with the queue taken in the same synchronous step: a grant made at
   * once, or the claim that asked to take (`take`). A waiter queued after this step stays untaken
   * for the next holder. Nothing is taken while a hold is in force (as `takeQueued`).
   */
  withQueue(take: boolean | undefined): (result: Result<LeaseGrant>) => Result<LeaseGrant> {
    return (result) => {
      if (!take || !result.ok || result.value.claimBy !== undefined) return result;
      const onHold = this.#core.onHold(Date.now());
      return ok({ ...result.value, queued: onHold ? [] : this.#combining.takeWithGrant(result.value.token) });
    };
  }

  /** acquire, with the grant answering the ownership of `req.items`. */
  acquire(req: AcquireRequest): Promise<Result<LeaseGrant>> {
    return this.#core.acquire(req, this.withOwnership(req.items));
  }

  /**
   * acquire for a run that brings the item changes it wants made here (combine-waiters.ts). Granted
   * at once, it writes them itself (the changes are ignored); queued, the holder may take and write
   * them, and the answer is then `{ grant: null, combined }`.
   */
  acquireOrCombine(req: AcquireRequest): Promise<Result<GrantOrCombined>> {
    // More changes than one waiter may queue are not refused before the acquire decision (a free
    // lock is granted; a busy one queues the caller as a plain waiter that writes its own).
    const tooMany = (req.changes?.length ?? 0) > MAX_QUEUED_CHANGES;
    const changes = queuedChangesSchema.safeParse(tooMany ? [] : (req.changes ?? []));
    if (!changes.success) {
      return Promise.resolve(fail("VALIDATION", `queued changes refused: ${changes.error.message}`));
    }
    // A grant made at once takes the queue with it (empty unless this holder asks again).
    const takes = this.withQueue(true);
    return this.#combining.acquireOrCombine(req, changes.data, (r) =>
      this.#core.acquire(r, (result) => takes(this.withOwnership(r.items)(result))),
    );
  }

  /** Ownership of `items`, for the live holder only: a holder whose lease lapsed must not decide from it. */
  owners(req: FencedRequest & { items: OwnedItem[] }): Result<OwnershipView> {
    const refused = this.#core.fence(req, Date.now());
    if (refused) return refused;
    return ok(this.#ownership.view(req.items, { shares: true }));
  }

  /**
   * Changes ownership, fenced by the lease's token: a holder that lost its lease changes nothing.
   * The same step renews the lease: a successful change is the round-trip check of the lease at
   * that instant, and its answer carries the new expiry (docs/design.md, "Lease protocol").
   * `rebuilt` marks that ownership was rebuilt from the receipts' ledgers (done once, on upgrade).
   */
  async changeOwners(
    req: FencedRequest & { changes: OwnerChange[]; rebuilt?: boolean; locator?: Locator },
  ): Promise<Result<OwnerChangeAnswer>> {
    const now = Date.now();
    const refused = this.#core.fence(req, now);
    if (refused) return refused;
    const expiresAt = this.#core.extendHeld(now);
    return ok({ ...(await this.#ownership.change(req, now)), expiresAt });
  }

  /** Every owned or foreign item and where each op's list lives, read-only (views, the sweep). */
  ownership(): OwnershipRecord {
    return this.#ownership.record();
  }

  /** Each owner's and repository's count of `ops`' items, read-only (the lock's fill levels). */
  shares(ops: readonly string[]): OwnershipShares {
    return this.#ownership.shares(ops);
  }

  /** The queued changes of every waiter no live lease took yet, now taken by this token. */
  takeQueued(req: FencedRequest): Result<TakenQueue> {
    const now = Date.now();
    const refused = this.#core.fence(req, now);
    if (refused) return refused;
    // A hold admits no new changes: the holder writes its own, waiters write theirs after it.
    if (this.#core.onHold(now)) return ok({ waiters: [] });
    return ok(this.#combining.take(req.token));
  }

  /** The holder's report of a combined write, fenced by its token (combine-waiters.ts). */
  reportCombined(req: ReportCombinedRequest): Result<void> {
    const body = reportCombinedBodySchema.safeParse(req);
    if (!body.success) return fail("VALIDATION", `combined report refused: ${body.error.message}`);
    const now = Date.now();
    const refused = this.#core.fence(req, now);
    if (refused) return refused;
    this.#combining.report(req, body.data, now);
    return ok(undefined);
  }

  /** Writes still remembered, for the holder (docs/design.md, "Providers that forget a write"). */
  recentWrites(req: FencedRequest): Result<RecentWrite[]> {
    const now = Date.now();
    const refused = this.#core.fence(req, now);
    if (refused) return refused;
    return ok(liveRecentWrites(this.#core.sql, now));
  }

  /**
   * The same for a reader without the lease (docs/design.md, "Providers that forget a write"): the
   * first look of a run and the orphan search merge them over their read as the holder does.
   */
  peekRecentWrites(): RecentWrite[] {
    return recentWritesAt(this.#core.sql, Date.now());
  }

  /** Remembers what the holder's write made true, fenced by its token (recent-writes-store.ts). */
  rememberWrites(req: FencedRequest & { writes: RecentWrite[] }): Result<void> {
    const writes = rememberedWritesSchema.safeParse(req.writes);
    if (!writes.success) return fail("VALIDATION", `recent writes refused: ${writes.error.message}`);
    const refused = this.#core.fence(req, Date.now());
    if (refused) return refused;
    rememberWrites(this.#core.sql, writes.data);
    return ok(undefined);
  }

  /** The alarm's part: combined answers nobody collected age out. */
  ageAnswers(now: number, lease: LeaseRow | null): Effect[] {
    return this.#combining.ageAnswers(now, lease);
  }
}
