/**
 * Which scopes holding entries of a full list are stale (docs/design.md, "Lists at their cap"):
 * their pull request is closed (a destroy that dead-lettered is one of a closed pull request, so it
 * is stale the same way), or their last run is older than their environment's `staleAfterDays`.
 * Pure: the caller reads the scope state and the receipt.
 */

export type StaleReason = "closed" | "idle";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface ScopeFacts {
  /** The scope state's status; null when it was not read (no gate wired). */
  status: "open" | "closed" | null;
  /** When the scope's last recorded run finished; null when it has none. */
  lastRunAt: number | null;
  now: number;
  /** The scope's environment's `staleAfterDays` (SPONSON_ENVIRONMENTS); absent: never idle. */
  staleAfterDays?: number;
}

export function staleReason(f: ScopeFacts): StaleReason | null {
  if (f.status === "closed") return "closed";
  if (
    f.staleAfterDays !== undefined &&
    f.lastRunAt !== null &&
    f.now - f.lastRunAt > f.staleAfterDays * DAY_MS
  )
    return "idle";
  return null;
}

/** `pr-12` → 12; branch and main scopes have no pull request. */
export function pullRequestOf(scope: string): number | null {
  const m = /^pr-([1-9][0-9]*)$/.exec(scope);
  return m ? Number(m[1]) : null;
}
