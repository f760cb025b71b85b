/**
 * Whether a queued destroy may still run, given the scope state read under the scope lease
 * (docs/design.md, "Webhooks and the sweep").
 * Pure: no I/O, no clock.
 */
import type { ScopeStateView } from "../scope-state/scope-state-client";
import type { DestroyResult, QueuedDestroy } from "./queued-destroy";

export type DestroyDecision = { proceed: true } | { proceed: false; skip: DestroyResult };

export function destroyDecision(state: ScopeStateView, job: QueuedDestroy): DestroyDecision {
  if (state.status === "open") {
    return {
      proceed: false,
      skip: {
        outcome: "skipped-reopened",
        detail: `${job.scope} is open at revision ${state.revision} (destroy asked at ${job.revision})`,
      },
    };
  }
  if (state.revision < job.revision) {
    // Cannot happen through the receiver (it enqueues after the close is stored); refuse anyway.
    return {
      proceed: false,
      skip: {
        outcome: "skipped-stale",
        detail: `${job.scope} is closed at revision ${state.revision}, older than the destroy's ${job.revision}`,
      },
    };
  }
  return { proceed: true };
}
