/**
 * What crosses the scope-state object's RPC boundary (the client re-exports these), and its RPC
 * surface (durable-objects/scope-state.ts implements it).
 */
import type { Result } from "../errors";

export type ScopeStatus = "open" | "closed";

export interface ScopeStateView {
  scope: string;
  status: ScopeStatus;
  /** Revision of the last applied event (pull_request.updated_at, epoch ms); 0 before any event. */
  revision: number;
  /** X-GitHub-Delivery of the event that set this state; null before any event. */
  deliveryId: string | null;
  /** When this object last changed state (epoch ms); null before any event. */
  changedAt: number | null;
}

export interface ScopeEvent {
  status: ScopeStatus;
  revision: number;
  deliveryId: string;
}

/**
 * `applied`: the state now reflects the event. `ignored`: the event lost the revision guard.
 * `duplicate`: this delivery was seen before and nothing changed; `enqueuePending` says the first
 * attempt applied a close whose destroys were never confirmed enqueued, so a replay re-sends them.
 */
export type ApplyOutcome =
  | { kind: "applied"; state: ScopeStateView; previous: ScopeStateView }
  | { kind: "ignored"; reason: "older" | "unchanged" | "tie-closed-wins"; state: ScopeStateView }
  | { kind: "duplicate"; state: ScopeStateView; enqueuePending: boolean };

/** The RPC surface with its declared result types (RPC typing flattens the unions otherwise). */
export interface ScopeStateApi {
  read(req: { scope: string }): Promise<ScopeStateView>;
  applyEvent(req: { scope: string } & ScopeEvent): Promise<Result<ApplyOutcome>>;
  markEnqueued(req: { deliveryId: string }): Promise<void>;
  /** The close that set the current state, if its destroys were never confirmed enqueued. */
  unconfirmedClose(req: { scope: string }): Promise<ScopeEvent | null>;
}
