/**
 * One lease object per lock key (docs/design.md, "Lease protocol"): the RPC surface of one
 * Durable Object class, whatever kind of lock its key names, over one lease core (lease-core.ts)
 * and the parent lock's role built on it: ownership, write combining and recent writes
 * (parent-lock-role.ts). What scope locks of 0.1.x kept is legacy-intents.ts (upgrading only).
 * Each method here only says which parts serve a call; its helpers are `#private`, so none is
 * callable over RPC.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../shared/env";
import type { Result } from "../shared/errors";
import type {
  AcquireRequest,
  ClaimRequest,
  FencedRequest,
  LeaseLockApi,
  LegacyIntentRef,
  ReleaseRequest,
  ReportCombinedRequest,
  WaitingAnswer,
} from "../shared/rpc/lease-lock";
import type { GrantOrCombined, TakenQueue } from "../shared/schemas/combine";
import type { FillLevel } from "../shared/schemas/fill-level";
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
import type { RunOrigin } from "../shared/schemas/provenance";
import type { Intent } from "../shared/schemas/receipt";
import type { RecentWrite } from "../shared/schemas/recent-writes";
import {
  claimNearCapacity,
  confirmNearCapacity,
  fillsOf,
  recordFills,
  unclaimNearCapacity,
  withRepositoryShares,
} from "./fill-levels";
import { LeaseCore } from "./lease-core";
import { migrateIfBehind } from "./lease-schema";
import { LegacyIntents } from "./legacy-intents";
import type { LeaseLockDeps } from "./lock-effects";
import { ParentLockRole } from "./parent-lock-role";

export { HISTORY_LIMIT } from "./lease-store";
export type { LeaseLockDeps } from "./lock-effects";

export class LeaseLock extends DurableObject<Env> implements LeaseLockApi {
  readonly #core: LeaseCore;
  readonly #parent: ParentLockRole;
  /** Upgrading only (deleted in 0.4.0): intents scope locks of 0.1.x kept. */
  readonly #legacy: LegacyIntents;

  /** Built by the Worker's entry with its dependencies (workers/wiring/objects.ts). */
  constructor(ctx: DurableObjectState, env: Env, deps: LeaseLockDeps) {
    super(ctx, env);
    // Synchronous and before any call is delivered: one read of the schema version when current.
    migrateIfBehind(ctx.storage.sql);
    this.#core = new LeaseCore(ctx, env, deps);
    this.#parent = new ParentLockRole(this.#core, env);
    this.#legacy = new LegacyIntents(this.#core, ctx, env);
    ctx.blockConcurrencyWhile(() => this.#core.load().then(() => this.#legacy.loaded()));
  }

  // --- the lease (both roles) ---

  async acquire(req: AcquireRequest): Promise<Result<LeaseGrant>> {
    return this.#legacy.flag(await this.#parent.acquire(req));
  }

  /**
   * Confirms a lease granted to a waiter, within its claim window; idempotent for a lease already
   * claimed. A renewal or re-acquire by the holder claims it too (the holder is evidently there).
   * With `items`, the claim answers their ownership view, read in the same step (under the lease).
   */
  async claim(req: ClaimRequest): Promise<Result<LeaseGrant>> {
    const claimed = this.#core.renew(req);
    return this.#legacy.flag(
      this.#parent.withQueue(req.take)(this.#parent.withOwnership(req.items)(claimed)),
    );
  }

  async renew(req: FencedRequest): Promise<Result<LeaseGrant>> {
    return this.#core.renew(req);
  }

  async release(req: ReleaseRequest): Promise<Result<ReleaseOutcome>> {
    const released = this.#core.release(req);
    // Only the holder's own release in time brings its fills: the run's writes left the lists so
    // (after an expiry the write's outcome is unknown to it).
    if (released.ok && released.value.reason === "released" && req.fills)
      recordFills(this.#core.store, req.fills);
    return released;
  }

  async forceRelease(req: { key: string; reason: string; actor: string }): Promise<Result<ReleaseOutcome>> {
    return this.#core.forceRelease(req);
  }

  async waiting(req: { key: string; holder: string; origin?: RunOrigin }): Promise<WaitingAnswer> {
    return this.#core.waiting(req);
  }

  async read(req: { key: string }): Promise<LockState> {
    const state = await this.#core.read(req);
    const kept = fillsOf(this.#core.store);
    if (kept.length === 0) return state;
    return { ...state, fills: withRepositoryShares(kept, this.#parent.shares(kept.map((f) => f.op))) };
  }

  /** An admin's hold (lock-holds.ts): blocks every next grant until it ends or is lifted. */
  async hold(req: { key: string; reason: string; by: string; ttlMs: number }): Promise<Result<HoldOutcome>> {
    return this.#core.hold(req);
  }

  async unhold(req: { key: string; actor: string }): Promise<Result<HoldOutcome>> {
    return this.#core.unhold(req);
  }

  override async alarm(): Promise<void> {
    await this.#core.alarm((now, lease) => this.#parent.ageAnswers(now, lease));
  }

  // --- upgrading only (deleted in 0.4.0: docs/upgrading.md) ---

  async drainLegacyIntents(req: FencedRequest & { drop?: LegacyIntentRef[] }): Promise<Result<Intent[]>> {
    return this.#legacy.drain(req);
  }

  // --- the parent lock's role ---

  async owners(req: FencedRequest & { items: OwnedItem[] }): Promise<Result<OwnershipView>> {
    return this.#parent.owners(req);
  }

  async changeOwners(
    req: FencedRequest & { changes: OwnerChange[]; rebuilt?: boolean; locator?: Locator },
  ): Promise<Result<OwnerChangeAnswer>> {
    return this.#parent.changeOwners(req);
  }

  async ownership(_req: { key: string }): Promise<OwnershipRecord> {
    return this.#parent.ownership();
  }

  async nearCapacity(req: { key: string; now: number }): Promise<Array<FillLevel & { notify: boolean }>> {
    return claimNearCapacity(this.#core.store, req.now);
  }

  async unclaimNearCapacity(req: { key: string; ops: string[] }): Promise<void> {
    unclaimNearCapacity(this.#core.store, req.ops);
  }

  async confirmNearCapacity(req: { key: string; ops: string[] }): Promise<void> {
    confirmNearCapacity(this.#core.store, req.ops);
  }

  async acquireOrCombine(req: AcquireRequest): Promise<Result<GrantOrCombined>> {
    return this.#parent.acquireOrCombine(req);
  }

  async takeQueued(req: FencedRequest): Promise<Result<TakenQueue>> {
    return this.#parent.takeQueued(req);
  }

  async reportCombined(req: ReportCombinedRequest): Promise<Result<void>> {
    return this.#parent.reportCombined(req);
  }

  async recentWrites(req: FencedRequest): Promise<Result<RecentWrite[]>> {
    return this.#parent.recentWrites(req);
  }

  async peekRecentWrites(_req: { key: string }): Promise<RecentWrite[]> {
    return this.#parent.peekRecentWrites();
  }

  async rememberWrites(req: FencedRequest & { writes: RecentWrite[] }): Promise<Result<void>> {
    return this.#parent.rememberWrites(req);
  }
}
