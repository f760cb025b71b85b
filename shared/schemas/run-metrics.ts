/**
 * Where a run's time went (docs/api.md, "Where a run's time went"): wall-clock milliseconds per kind
 * of wait, and how many calls of each kind it made. Kept apart from run.ts so the receipt's run
 * records can carry them too without an import cycle.
 */
import { z } from "zod";

const ms = z.number().nonnegative();
const count = z.number().int().nonnegative();

/**
 * Each part is the wall time during which at least one call of its kind was in flight, so a part is
 * never more than `total` even when calls overlap; parts may overlap each other.
 */
export const runTimingsSchema = z.object({
  /** Request authentication, validation and the run's admission (policy) before any lease. */
  authorization: ms,
  /** Acquiring the scope lease, waiting in its queue included. */
  scopeLockWait: ms,
  /** Acquiring parent leases, waiting included, summed over the run's parents. */
  parentLockWait: ms,
  /** Outbound provider requests (token exchanges included). */
  provider: ms,
  /** Receipt (R2) and scope-state reads and writes. */
  storage: ms,
  /**
   * Waiting for a provider tenant's budget before its calls (docs/design.md, "Write budgets").
   * Absent in run records stored before it was measured.
   */
  budgetWait: ms.optional(),
  /** From the request's arrival (or the run's start, outside HTTP) to the result. */
  total: ms,
});
export type RunTimings = z.infer<typeof runTimingsSchema>;

export const runCountsSchema = z.object({
  /** Outbound provider requests, each retry counted. */
  providerCalls: count,
  /** Lock-object calls: acquire, claim, renew, release, ownership reads and changes. */
  lockOps: count,
  /** Receipt reads and listings, scope-state reads. */
  storageReads: count,
  /** Receipt writes and deletions. */
  storageWrites: count,
  /**
   * Distinct locks the run asked for a lease on (its scope's and each parent's). Each lock object
   * does work of its own per lease that no call above counts (docs/performance.md, "Cost per
   * million runs"). Absent in run records stored before it was counted.
   */
  locks: count.optional(),
});
export type RunCounts = z.infer<typeof runCountsSchema>;

export const TIMING_KINDS = [
  "authorization",
  "scopeLockWait",
  "parentLockWait",
  "provider",
  "storage",
  "budgetWait",
] as const;
export type TimingKind = (typeof TIMING_KINDS)[number];
export type CountKind = Exclude<keyof RunCounts, "locks">;
