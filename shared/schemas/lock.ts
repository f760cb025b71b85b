import { z } from "zod";
import { fillLevelSchema } from "./fill-level";
import { holdViewSchema } from "./hold";
import { ownershipViewSchema } from "./ownership";
import { leaseHolderSchema, runHolderSchema } from "./provenance";
import { queuedWaiterSchema } from "./queued-change";

export const lockKindSchema = z.enum(["scope", "parent"]);
export type LockKind = z.infer<typeof lockKindSchema>;

export const transitionSchema = z.enum([
  "acquired",
  "renewed",
  "released",
  "expired",
  "taken-over",
  "force-released",
  /** A waiter confirmed the lease it was granted, within its claim window. */
  "claimed",
  /** A waiter was granted the lease but never confirmed it; the lock went on to the next waiter. */
  "claim-lapsed",
  /** The holder released its own lease after it had expired (nobody else had taken it yet). */
  "released-expired",
  /**
   * A waiter's queued changes were written by the holder (write combining): `holder` names the
   * waiter, `token` the holder's lease, the note the holder. Not a grant: the lease is unchanged.
   */
  "combined",
  /** Holds (docs/design.md, "Lease protocol: holds"): `holder` is the admin (none for an expiry's). */
  "hold-set",
  "hold-lifted",
  "hold-expired",
]);
export type Transition = z.infer<typeof transitionSchema>;

export const historyEntrySchema = z.object({
  at: z.number().int(),
  transition: transitionSchema,
  holder: z.string(),
  token: z.number().int(),
  note: z.string().optional(),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

export const waiterViewSchema = z.object({
  holder: z.string(),
  since: z.number().int(),
  /** Its place in the queue, 1 first (always sent; optional for clients of older servers). */
  position: z.number().int().positive().optional(),
  /** Who the waiting run is (docs/design.md, "Lock answers"). */
  by: runHolderSchema.optional(),
  /** Write combining: how many item changes the waiter brought, if any. */
  changes: z.number().int().optional(),
  /** Whether the current holder took them to write with its own. */
  taken: z.boolean().optional(),
});
export type WaiterView = z.infer<typeof waiterViewSchema>;

/** A granted lease as the holder sees it. */
export const leaseGrantSchema = z.object({
  key: z.string(),
  holder: z.string(),
  token: z.number().int().positive(),
  acquiredAt: z.number().int(),
  expiresAt: z.number().int(),
  /**
   * Set on a grant handed to a waiter: the lease is provisional and lapses to the next waiter at
   * this instant (object time, equal to expiresAt) unless the holder claims it first.
   */
  claimBy: z.number().int().optional(),
  /**
   * The ownership of the items the acquire (or the claim) named, read in the same step as the
   * grant, under it: nobody but this holder can change it before its first call (docs/design.md,
   * "Ownership of shared entries"). Absent on a provisional grant (the claim carries it) and
   * where no items were named.
   */
  ownership: ownershipViewSchema.optional(),
  /**
   * Scope locks: the etag of the scope's receipt as the previous holder saved it and released with
   * it, answered only while nothing since can have changed it (no expiry, force-release or
   * takeover since that release). A run whose own read has this etag need not read again.
   */
  receiptEtag: z.string().optional(),
  /**
   * Scope locks, on a grant and its claim (upgrading only; deleted in 0.4.0): the lock still keeps
   * intents a holder of 0.1.x left there, which the upgrade has not drained into the receipt yet.
   * A run refuses such a grant (docs/upgrading.md); only the upgrade's drain takes them.
   */
  legacyIntents: z.literal(true).optional(),
  /**
   * Parent locks, write combining: the queued changes this grant took for its holder to write and
   * report, taken in the same step as a grant made at once (acquireOrCombine) or as the claim that
   * asked to take (`take`). A waiter that queues after that step is not this holder's: it stays
   * untaken for the next one (docs/design.md, "Write combining: the lock object's side").
   */
  queued: z.array(queuedWaiterSchema).optional(),
});
export type LeaseGrant = z.infer<typeof leaseGrantSchema>;

/** One lock as its own object reports it (authoritative). */
export const lockStateSchema = z.object({
  key: z.string(),
  kind: lockKindSchema,
  identity: z.string().nullable(),
  held: z.boolean(),
  holder: z.string().nullable(),
  token: z.number().int().nullable(),
  since: z.number().int().nullable(),
  expiresAt: z.number().int().nullable(),
  /** The holder as a person reads it (docs/design.md, "Lock answers"); optional for older servers. */
  heldBy: leaseHolderSchema.nullable().optional(),
  waiters: z.array(waiterViewSchema),
  /** An admin's hold in force (docs/design.md, "Lease protocol: holds"); absent when none is. */
  hold: holdViewSchema.optional(),
  /**
   * How many times the lock was granted; absent for a caller bound to one repository, since it
   * counts other repositories' runs too (docs/security.md, "Repository isolation").
   */
  lastToken: z.number().int().optional(),
  history: z.array(historyEntrySchema),
  /**
   * Parent locks: each capped list's fill as the last write left it (docs/design.md, "Fill levels");
   * absent when none is known.
   */
  fills: z.array(fillLevelSchema).optional(),
});
/** A lock as an answer may show it (a repository-bound caller's view leaves `lastToken` out). */
export type LockView = z.infer<typeof lockStateSchema>;
/** A lock as its own object reports it: the count of grants always there. */
export type LockState = LockView & { lastToken: number };

/**
 * Who force-released a live lease, and why (docs/design.md, "Lease protocol": forceRelease): what
 * the lock's refusal of that lease's holder carries as `detail.forceReleased`, so the run's
 * LOCK_LOST can say it.
 */
export const forceReleasedSchema = z.object({
  by: z.string(),
  reason: z.string(),
  /** The lock object's clock when it released (ms). */
  at: z.number().int(),
});
export type ForceReleased = z.infer<typeof forceReleasedSchema>;

export const releaseOutcomeSchema = z.object({
  released: z.boolean(),
  /**
   * `released`: the token was current and unexpired when the release arrived, so its holder held
   * the lock all along (a parent's release is the check after its write, docs/design.md "Lease
   * protocol"). `released-expired`: freed, but the lease had expired (nobody else took it yet):
   * not live, and its lock-delay follows the expiry. An admin's force-release answers `released`
   * for a live lease taken away and for a waiter's grant that lapsed unclaimed (no lock-delay:
   * nobody wrote), `released-expired` for an expired one.
   */
  reason: z.enum(["released", "released-expired", "stale-token", "not-held"]),
  /** The object's own clock when it decided (history and audits compare against it). */
  at: z.number().int(),
});
export type ReleaseOutcome = z.infer<typeof releaseOutcomeSchema>;
