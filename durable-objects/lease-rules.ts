/**
 * Pure lease decisions (docs/design.md, "Lease protocol"). No `this`, no I/O, no clock: `now` is always
 * passed in, so the object, its alarm and the tests all ask the same questions of the same data.
 */
import { fail, type Result } from "../shared/errors";
import { LOCK_DELAY_MS } from "../shared/lease-defaults";
import type { ForceReleased } from "../shared/schemas/lock";
import { holderWords, type LeaseHolder, type RunOrigin, runHolderFor } from "../shared/schemas/provenance";

export interface LeaseRow {
  holder: string;
  token: number;
  acquiredAt: number;
  expiresAt: number;
  ttlMs: number;
  /** Granted to a waiter and not yet claimed: expiresAt is the claim deadline. */
  claimPending: boolean;
  /** The run holding it, as it described itself (null: a caller that did not, or an older lease). */
  origin?: RunOrigin | null;
}

/**
 * How long a waiter has to claim the lease it was granted. A waiter whose caller has gone (a
 * cancelled CI job) never claims, so it holds the lock this long instead of a whole TTL.
 */
export const CLAIM_WINDOW_MS = 5_000;

/** The claim window a waiter gets: callers may only shorten it (tests do), never lengthen it. */
export function claimWindowOf(requested: number | undefined): number {
  if (requested === undefined || !Number.isFinite(requested)) return CLAIM_WINDOW_MS;
  return Math.min(Math.max(Math.floor(requested), 1), CLAIM_WINDOW_MS);
}

/** How an expired lease is recorded when it ends: an unclaimed grant lapsed, a claimed one expired. */
export function endOfLease(lease: LeaseRow): "claim-lapsed" | "expired" {
  return lease.claimPending ? "claim-lapsed" : "expired";
}

export type AcquireDecision =
  | { kind: "grant" }
  | { kind: "reacquire" }
  | { kind: "takeover"; previous: LeaseRow }
  | { kind: "busy"; lease: LeaseRow | null };

export function isExpired(lease: LeaseRow, now: number): boolean {
  return now >= lease.expiresAt;
}

/** The lock-delay a lease asks for: callers may only shorten it (tests do), never lengthen it. */
export function lockDelayOf(requested: number | undefined): number {
  if (requested === undefined || !Number.isFinite(requested)) return LOCK_DELAY_MS;
  return Math.min(Math.max(Math.floor(requested), 0), LOCK_DELAY_MS);
}

/** The history note of a quiet release (docs/design.md, "Fencing around a write"). */
export const QUIET_RELEASE_NOTE = "a write sent under it may still land: quiet for its lock-delay";

/** How a lease ended, as its history records it. */
export type LeaseEnd = "expired" | "claim-lapsed" | "released" | "released-expired" | "force-released";

/**
 * One end of a lease: how, when (the object's clock), and whether its holder said a write it sent
 * under the lease may still land (`quiet`: a release after a write attempt that got no answer,
 * docs/design.md "Fencing around a write").
 */
export interface LeaseEnding {
  how: LeaseEnd;
  at: number;
  quiet?: boolean;
}

/**
 * Until when nobody else may be granted the lock once `lease` ended as `end` says. A lease that
 * expired (or was released only after its expiry) may still have a write in flight, sent just
 * before its holder's deadline: the lock stays quiet for its lock-delay after the expiry. A quiet
 * release keeps it quiet for the lock-delay after the release itself: every attempt of the write
 * was sent before it, so each has landed or is lost by then (docs/design.md, "Lock-delay"). A
 * release in time, a force-release (an admin's call) and an unclaimed grant (its holder never
 * claimed it, so never wrote) need none.
 */
export function quietUntil(lease: LeaseRow, end: LeaseEnding, lockDelayMs: number): number {
  const afterRelease = end.quiet === true ? end.at + lockDelayMs : 0;
  if (end.how !== "expired" && end.how !== "released-expired") return afterRelease;
  if (lease.claimPending) return afterRelease;
  return Math.max(lease.expiresAt + lockDelayMs, afterRelease);
}

/**
 * Whether `holder` may take the lock now. Queued waiters win: a lock that is free or expired while
 * others wait goes to the first of them, never to a newcomer (FIFO).
 */
export function decideAcquire(
  lease: LeaseRow | null,
  holder: string,
  now: number,
  waiting: number,
  quiet = 0,
): AcquireDecision {
  const live = lease !== null && !isExpired(lease, now);
  if (live && lease.holder === holder) return { kind: "reacquire" };
  if (live || waiting > 0 || now < quiet) return { kind: "busy", lease };
  if (lease) return { kind: "takeover", previous: lease };
  return { kind: "grant" };
}

/** renew and release only act for the holder of that exact token, and only while it is live. */
export function holdsToken(lease: LeaseRow | null, holder: string, token: number, now: number): boolean {
  return lease !== null && lease.holder === holder && lease.token === token && !isExpired(lease, now);
}

/** Who asks, for a refusal: its repository (null: may see any holder) and its place if it queued. */
export interface Asker {
  viewer: number | null;
  /** 1-based place in the queue when its wait ended; absent for a caller that did not wait. */
  position?: number;
}

/** The lease's holder as `viewer` may see it (shared/schemas/provenance.ts runHolderFor). */
export function leaseHolderOf(lease: LeaseRow, viewer: number | null): LeaseHolder {
  return {
    ...runHolderFor(lease.holder, lease.origin ?? null, viewer),
    since: lease.acquiredAt,
    expiresAt: lease.expiresAt,
  };
}

/** What else decides a refusal when no live lease does: the queue and the lock-delay. */
export interface FreeLockState {
  now: number;
  /** Runs still queued for the lock (the refused caller not counted). */
  waiting: number;
  /** No grant before this (lease-store.ts quietUntil; 0: none). */
  quietUntil: number;
  /** What started that quiet period: an expiry, or a quiet release (lease-store.ts quietAfter). */
  quietAfter?: "expiry" | "release";
}

const iso = (ms: number) => new Date(ms).toISOString();

/** What every refusal names: the lock, by its identity when it has one, and the asker's place. */
function refusalParts(lock: { key: string; identity: string | null }, asker: Asker) {
  const position = asker.position === undefined ? {} : { position: asker.position };
  return { key: lock.key, name: lock.identity ?? lock.key, position };
}

/**
 * LOCK_HELD for a caller that may not have the lock now (it did not wait, or its wait ended): who
 * holds it, since and until when, and what to do (docs/design.md, "Lock answers"). A lock nobody
 * holds live is refused for what is true of it: runs queued ahead, or its lock-delay.
 */
export function heldRefusal(
  lock: { key: string; identity: string | null },
  lease: LeaseRow | null,
  asker: Asker,
  free: FreeLockState,
): Result<never> {
  const { key, name, position } = refusalParts(lock, asker);
  const live = lease !== null && !isExpired(lease, free.now) ? lease : null;
  if (!live) return freeRefusal(lock, lease, asker, free);
  const holder = leaseHolderOf(live, asker.viewer);
  const queued = asker.position === undefined ? "" : ` (this run was number ${asker.position} in the queue)`;
  return fail(
    "LOCK_HELD",
    `${name} is held by ${holderWords(holder)} since ${iso(live.acquiredAt)}, until ${iso(live.expiresAt)}${queued}. ` +
      `Wait for it with \`--wait\`, or an admin can release it: \`sponson unlock ${key} --reason …\``,
    { lock: key, holder, ...position },
  );
}

/**
 * LOCK_HELD for a lock with no live lease: the first queued run goes first (FIFO), and a lock whose
 * last lease expired grants nobody until its lock-delay ends (a write that holder sent may still
 * land). Says only what is so: no waiting run when none waits, no holder when the lease expired.
 */
function freeRefusal(
  lock: { key: string; identity: string | null },
  expired: LeaseRow | null,
  asker: Asker,
  free: FreeLockState,
): Result<never> {
  const { key, name, position } = refusalParts(lock, asker);
  const quiet = free.quietUntil > free.now;
  const delay = quiet ? ` after its lock-delay, at ${iso(free.quietUntil)}` : "";
  if (free.waiting > 0) {
    return fail("LOCK_HELD", `${name} is being handed to a waiting run${delay}`, { lock: key, ...position });
  }
  if (!quiet) {
    // Nothing keeps the lock now (a wait that ended just as its lease did): asking again gets it.
    return fail("LOCK_HELD", `${name} was free when this run was refused: ask for it again`, {
      lock: key,
      retryAfterSeconds: 1,
      ...position,
    });
  }
  const who = expired
    ? `the lease of ${holderWords(leaseHolderOf(expired, asker.viewer))} expired at ${iso(expired.expiresAt)}`
    : free.quietAfter === "release"
      ? "its last lease was released after a write attempt that got no answer"
      : "its last lease expired";
  return fail(
    "LOCK_HELD",
    `${name} is free but in its lock-delay until ${iso(free.quietUntil)}: ${who}, and a write sent ` +
      "under it may still land, so no run is granted the lock before then. Retry then, or wait for it with `--wait`",
    {
      lock: key,
      retryAfterSeconds: Math.max(1, Math.ceil((free.quietUntil - free.now) / 1000)),
      ...position,
    },
  );
}

/** The last live lease an admin force-released: whose, which token, by whom and why. */
export interface LeaseForceReleased extends ForceReleased {
  holder: string;
  token: number;
}

/**
 * LOCK_LOST for a caller whose token is not the live lease's, naming the live holder if any. When
 * that very lease (holder and token) was force-released, it says by whom and why, so the run's
 * answer can (`detail.forceReleased`); any other loss says only that it is lost.
 */
export function lostRefusal(
  req: { key: string; holder: string; token: number },
  lease: LeaseRow | null,
  now: number,
  forced: LeaseForceReleased | null = null,
): Result<never> {
  const mine = forced !== null && forced.holder === req.holder && forced.token === req.token ? forced : null;
  const lease_ = `lease on ${req.key} (token ${req.token})`;
  return fail(
    "LOCK_LOST",
    mine
      ? `${lease_} was force-released by ${mine.by}: ${mine.reason}`
      : `${lease_} is no longer held by ${req.holder}`,
    {
      lock: req.key,
      holder: lease && !isExpired(lease, now) ? lease.holder : null,
      ...(mine ? { forceReleased: { by: mine.by, reason: mine.reason, at: mine.at } } : {}),
    },
  );
}

/**
 * How many runs of one repository may wait at one lock (docs/security.md, "Fair use"). A queue is
 * first come, first granted and lives in the object's memory, so without a cap one repository's
 * runs could line up by the hundred in front of every other repository's at a shared object. Past
 * the cap the next run of that repository is refused at once, never queued: `RATE_LIMITED` (429,
 * retriable), rule `lock.waiters-per-repository`. A run is its repository's by the origin it
 * described (the Worker builds it from the repository it resolved; docs/design.md, "Lock
 * answers"); a run without one (the sweep's, an admin's adoption) is no repository's and is
 * never capped. The same run asking again keeps its place (WaiterQueue.reattach) and is not
 * counted twice. Pure: the queue and the asker in, the refusal or null out.
 */
/** The most runs of one repository waiting at one lock at once. */
export const MAX_WAITERS_PER_REPOSITORY = 32;

export function waiterCapRefusal(
  queue: ReadonlyArray<{ origin: RunOrigin | null }>,
  asker: { key: string; origin?: RunOrigin },
): Result<never> | null {
  const repositoryId = asker.origin?.repositoryId;
  if (repositoryId === undefined) return null;
  const waiting = queue.filter((w) => w.origin?.repositoryId === repositoryId).length;
  if (waiting < MAX_WAITERS_PER_REPOSITORY) return null;
  return fail(
    "RATE_LIMITED",
    `${waiting} runs of ${asker.origin?.repository ?? "this repository"} wait for ${asker.key} already, ` +
      `the most one repository may queue at one lock: run the job again when fewer of its runs wait`,
    { rule: "lock.waiters-per-repository", lock: asker.key, limit: MAX_WAITERS_PER_REPOSITORY },
  );
}
