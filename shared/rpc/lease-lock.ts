/**
 * The lease object's RPC surface, one call surface per role (docs/design.md, "Lease protocol"):
 * `LeaseApi` every lease has, `ParentLockApi` what a parent lease adds, `LockAdminApi` what views,
 * admins and the sweep call. durable-objects/lease-lock.ts implements all of them (one class), and
 * the Worker's targets (workers/locks/lock-target.ts) are derived from them per role, so a scope
 * lease calling a parent lock's method is a type error. A new lock method is declared here only.
 */
import type { Result } from "../errors";
import type { CombineReport, GrantOrCombined, QueuedChange, TakenQueue } from "../schemas/combine";
import type { FillLevel } from "../schemas/fill-level";
import type { HoldOutcome } from "../schemas/hold";
import type { LeaseGrant, LockState, ReleaseOutcome } from "../schemas/lock";
import type {
  Locator,
  OwnedItem,
  OwnerChange,
  OwnerChangeAnswer,
  OwnershipRecord,
  OwnershipView,
} from "../schemas/ownership";
import type { LockHolder, RunOrigin } from "../schemas/provenance";
import type { Intent } from "../schemas/receipt";
import type { RecentWrite } from "../schemas/recent-writes";

export interface AcquireRequest {
  key: string;
  holder: string;
  ttlMs: number;
  identity?: string | null;
  wait?: boolean;
  waitTimeoutMs?: number;
  /** Shortens the claim window of a grant to this waiter (lease-rules.ts CLAIM_WINDOW_MS). */
  claimWindowMs?: number;
  /**
   * Shortens the lock-delay that follows this lease's expiry (lease-rules.ts lockDelayOf; tests
   * do). The engine never sets it.
   */
  lockDelayMs?: number;
  /**
   * Write combining: the item changes this waiter wants made on the object, if it has to wait
   * (acquireOrCombine only; a plain acquire ignores them).
   */
  changes?: QueuedChange[];
  /**
   * The items whose ownership the holder will decide from: a grant made at once answers their
   * ownership view (`LeaseGrant.ownership`), read in the same step; a waiter's claim does.
   */
  items?: OwnedItem[];
  /**
   * The run asking: kept with its lease (and its place in the queue) and named in lock answers;
   * for a parent lock also whose eyes a refusal is for (repository isolation).
   */
  origin?: RunOrigin;
}

/** A waiter's place and what it waits for (`waiting`). */
export interface WaitingAnswer {
  position: number | null;
  holder: LockHolder | null;
  /**
   * Write combining: the live lease took this waiter's changes and has not reported (the object
   * keeps it past its wait timeout for that report). Absent from an object of the version before.
   */
  taken?: boolean;
}

/** The holder of the lease, by its token: fenced calls answer LOCK_LOST to anyone else. */
export interface FencedRequest {
  key: string;
  holder: string;
  token: number;
}

/** A waiter confirming its grant; `items` as in AcquireRequest, answered with the claim. */
export interface ClaimRequest extends FencedRequest {
  items?: OwnedItem[];
  /** Write combining: take the queue behind this holder in the claim's step (LeaseGrant.queued). */
  take?: boolean;
}

export interface ReportCombinedRequest extends FencedRequest {
  reports: CombineReport[];
  ownerChanges?: OwnerChange[];
  locator?: Locator;
  /** The holder's repository (CombinedAnswer.repository). */
  repository?: number;
}

/** The holder giving its lease back. */
export interface ReleaseRequest extends FencedRequest {
  /**
   * Scope locks: the receipt's etag as this holder's last save left it, named only when that save
   * succeeded; the next grant answers it (LeaseGrant.receiptEtag).
   */
  receiptEtag?: string;
  /** Parent locks: the capped lists' fill as the holder's writes left them (shared/schemas/fill-level.ts). */
  fills?: FillLevel[];
  /**
   * A write sent under this lease may still land (an attempt of it got no answer): the lock is
   * granted to nobody for the lock-delay after this release (docs/design.md, "Fencing around a
   * write"). The answer is the same as without it: `released` says the lease was live.
   */
  quiet?: boolean;
}

/** One row a scope lock of 0.1.x keeps, by what names it there: one run's action on one item. */
export type LegacyIntentRef = Pick<Intent, "runId" | "action" | "op" | "key" | "parent">;

/** Every lease, scope or parent: the lease itself. */
export interface LeaseApi {
  acquire(req: AcquireRequest): Promise<Result<LeaseGrant>>;
  claim(req: ClaimRequest): Promise<Result<LeaseGrant>>;
  renew(req: FencedRequest): Promise<Result<LeaseGrant>>;
  release(req: ReleaseRequest): Promise<Result<ReleaseOutcome>>;
  /**
   * A waiter's place (1 first; null: not waiting) and the live holder as that waiter may see it
   * (or the hold in force, which is what it waits for), read-only: what the `waiting` events of a
   * queued run say (docs/design.md, "Lock answers"), and what a run whose wait deadline passed
   * unanswered asks ("Lease protocol": the run's side).
   */
  waiting(req: { key: string; holder: string; origin?: RunOrigin }): Promise<WaitingAnswer>;
}

/** A scope lease, upgrading only (docs/upgrading.md; deleted in 0.4.0). */
export interface LegacyScopeApi {
  /**
   * The intents a scope lock of 0.1.x still keeps, answered to the holder of the scope lease, less
   * the rows `drop` names, which its drain saved in the receipt first
   * (workers/upgrade/drain-legacy-intents.ts).
   */
  drainLegacyIntents(req: FencedRequest & { drop?: LegacyIntentRef[] }): Promise<Result<Intent[]>>;
}

/** What a parent lease adds: write combining, ownership, recent writes. Fenced but for the peek. */
export interface ParentLockApi {
  /** acquire, but a waiter's changes may be written by the holder instead (grant null then). */
  acquireOrCombine(req: AcquireRequest): Promise<Result<GrantOrCombined>>;
  /** The queued changes no holder has taken yet, now taken by this token. */
  takeQueued(req: FencedRequest): Promise<Result<TakenQueue>>;
  /** Records the ownership of a combined write and answers the waiters it wrote for. */
  reportCombined(req: ReportCombinedRequest): Promise<Result<void>>;
  owners(req: FencedRequest & { items: OwnedItem[] }): Promise<Result<OwnershipView>>;
  /** Fenced by the token, and renews the lease in the same step (answered with its expiry). */
  changeOwners(
    req: FencedRequest & { changes: OwnerChange[]; rebuilt?: boolean; locator?: Locator },
  ): Promise<Result<OwnerChangeAnswer>>;
  /** The writes to the object still remembered (docs/design.md, "Providers that forget a write"). */
  recentWrites(req: FencedRequest): Promise<Result<RecentWrite[]>>;
  /** The same, read-only and unfenced: for reads made before any lease (a first look, the orphan search). */
  peekRecentWrites(req: { key: string }): Promise<RecentWrite[]>;
  /** Remembers the items a write just made present or absent, each until its `until`. */
  rememberWrites(req: FencedRequest & { writes: RecentWrite[] }): Promise<Result<void>>;
}

/** Views, admins and the sweep: reads, holds, force-release, ownership, capacity. Never fenced. */
export interface LockAdminApi {
  read(req: { key: string }): Promise<LockState>;
  /** Holds (docs/design.md, "Lease protocol: holds"); the route checks the admin role and audits. */
  hold(req: { key: string; reason: string; by: string; ttlMs: number }): Promise<Result<HoldOutcome>>;
  unhold(req: { key: string; actor: string }): Promise<Result<HoldOutcome>>;
  forceRelease(req: { key: string; reason: string; actor: string }): Promise<Result<ReleaseOutcome>>;
  ownership(req: { key: string }): Promise<OwnershipRecord>;
  /**
   * The sweep: lists above the near-capacity share, each not told since it crossed claimed now
   * (`notify`), so two sweeps at once tell once (durable-objects/fill-levels.ts).
   */
  nearCapacity(req: { key: string; now: number }): Promise<Array<FillLevel & { notify: boolean }>>;
  /**
   * Gives back the claims of notices the sweep could not send: the next sweep tells. `ops`: each
   * list's `listId` (its op, or op and name for an op with several lists on the object).
   */
  unclaimNearCapacity(req: { key: string; ops: string[] }): Promise<void>;
  /** Marks the claimed notices the sweep sent as told: a claim alone lapses after a day. */
  confirmNearCapacity(req: { key: string; ops: string[] }): Promise<void>;
}

/** The one Durable Object class serves every role. */
export type LeaseLockApi = LeaseApi & LegacyScopeApi & ParentLockApi & LockAdminApi;
