/**
 * The revision guard for scope state (docs/design.md, "Webhooks and the sweep"): pure decisions, no I/O, no
 * clock.
 *
 * A revision is the pull request's `updated_at` as epoch milliseconds. GitHub stamps it at every
 * change of the pull request, so it grows monotonically per PR; it has one-second resolution, so a
 * close and a reopen within the same second carry the same revision. On such a tie `closed` wins:
 * a scope wrongly left closed only refuses applies until the next event (the author reopens or
 * re-runs), while a scope wrongly left open would let a late apply resurrect entries that the
 * close's destroy removes — the one outcome this service exists to prevent.
 */
import type { ScopeStatus } from "../shared/rpc/scope-state";

export type { ScopeStatus };

export interface ScopeStatusAt {
  status: ScopeStatus;
  revision: number;
}

/** A scope no event has touched yet: open, at revision 0 (older than any real event). */
export const INITIAL_STATUS: ScopeStatusAt = { status: "open", revision: 0 };

export type ApplyDecision =
  | { kind: "apply" }
  | { kind: "ignore"; reason: "older" | "unchanged" | "tie-closed-wins" };

export function decideApply(current: ScopeStatusAt, event: ScopeStatusAt): ApplyDecision {
  if (event.revision > current.revision) return { kind: "apply" };
  if (event.revision < current.revision) return { kind: "ignore", reason: "older" };
  if (event.status === current.status) return { kind: "ignore", reason: "unchanged" };
  // Same revision, different status: the safe direction is closed (see the header).
  return event.status === "closed" ? { kind: "apply" } : { kind: "ignore", reason: "tie-closed-wins" };
}

export function isValidRevision(revision: number): boolean {
  return Number.isSafeInteger(revision) && revision > 0;
}
