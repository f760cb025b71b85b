/**
 * The scope state's two checks around the scope lease (docs/design.md, "Staleness recheck"): pure
 * decisions on the states read, no I/O. The reads are the lifecycle's (workers/engine/run/under-scope.ts),
 * through the engine's `ScopeGate` (deps.ts), which answers the snapshot defined here.
 */

import { SponsonError } from "../../../shared/errors";
import type { PlatformHead } from "../../../shared/rpc/scope-state";
import type { RunAction } from "../../../shared/schemas/receipt";
import { scopeClosedError } from "./scope-closed";

/**
 * The scope's authorization-relevant state (docs/design.md, "Staleness recheck"), read before the lease and
 * again under it.
 */
export interface ScopeSnapshot {
  status: "open" | "closed";
  revision: number;
  /**
   * The newest deployment each platform connection accepted for this scope (docs/design.md, "The
   * platform door"): what a queued platform apply's guard compares its own deployment with.
   */
  platformHeads?: Readonly<Record<string, PlatformHead>>;
}

/**
 * What a queued destroy asks of the scope state read under the lease (docs/design.md, "Webhooks and the
 * sweep"): null to go on, or the reason to skip (recorded in the receipt as a skipped run).
 */
export type ScopeGuard = (state: ScopeSnapshot) => string | null;

/** What the state read under the lease says of the run. */
export type Recheck =
  | { kind: "go" }
  /** A queued destroy's guard asked to skip: recorded in the receipt as a skipped run. */
  | { kind: "skip"; reason: string }
  /** The state changed since authorization: refused before the run writes anything. */
  | { kind: "refuse"; error: SponsonError };

/** Before the lease: an apply on a scope that is already closed is refused (null: go on). */
export function closedBeforeLease(
  action: RunAction,
  scope: string,
  before: ScopeSnapshot | null,
): SponsonError | null {
  if (before && action === "apply" && before.status === "closed") {
    return scopeClosedError(scope, { status: before.status, revision: before.revision });
  }
  return null;
}

/**
 * Under the lease: any change of status or revision since the read before it refuses, even a reopen a
 * fresh authorization would allow (a retry succeeds); then a queued destroy's guard decides on the
 * state as it is now.
 */
export function recheckScope(input: {
  action: RunAction;
  scope: string;
  before: ScopeSnapshot | null;
  after: ScopeSnapshot | null;
  guard: ScopeGuard | null;
}): Recheck {
  const { action, scope, before, after, guard } = input;
  if (before && after && (after.revision !== before.revision || after.status !== before.status)) {
    // Closed meanwhile: an apply retried as is meets the closed scope, so say that instead.
    if (action === "apply" && after.status === "closed") {
      return {
        kind: "refuse",
        error: scopeClosedError(scope, { status: after.status, revision: after.revision }),
      };
    }
    const error = new SponsonError(
      "CONCURRENT_MODIFICATION",
      "scope changed since authorization — re-read and retry",
      {
        scope,
        scopeStatus: after.status,
        revision: after.revision,
      },
    );
    return { kind: "refuse", error };
  }
  const skip = guard && after ? guard(after) : null;
  return skip === null ? { kind: "go" } : { kind: "skip", reason: skip };
}
