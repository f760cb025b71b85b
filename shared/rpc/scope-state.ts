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
  /**
   * Per platform connection, the newest deployment accepted for this scope (docs/design.md, "The
   * platform door"); absent while no platform event was accepted.
   */
  platformHeads?: Record<string, PlatformHead>;
}

/** A platform connection's newest accepted deployment of one scope. */
export interface PlatformHead {
  deploymentId: string;
  /** The deployment's creation time as the platform says it (epoch ms). */
  createdAt: number;
}

/** A verified platform event for this scope (workers/platforms/): deduplicated, then ordered. */
export interface PlatformEvent {
  /** `<platform>:<the event's id>`: the same event delivered twice is one. */
  eventId: string;
  connection: string;
  deploymentId: string;
  createdAt: number;
}

/**
 * `accepted`: the deployment is this connection's newest for the scope (or the same one again);
 * its apply is to be queued. `ignored`: an older deployment, a tie with another one, or a closed
 * scope. `duplicate`: this event was seen (first at `receivedAt`); `enqueuePending` says its apply
 * was never confirmed queued, so a redelivery long enough after the first queues it.
 */
export type PlatformOutcome =
  | { kind: "accepted"; reason: "first" | "newer" | "same-deployment"; head: PlatformHead }
  | { kind: "ignored"; reason: "older" | "tie" | "closed"; head: PlatformHead | null }
  | { kind: "duplicate"; enqueuePending: boolean; receivedAt: number; head: PlatformHead | null };

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

/** The sweep asks whether to re-send a close's destroys (durable-objects/close-resend-rules.ts). */
export interface ResendAsk {
  /** The close the sweep read; another close (or a reopen) since answers `none`. */
  deliveryId: string;
  /** The sweep's clock (epoch ms). */
  now: number;
  graceMs: number;
  maxResends: number;
  /** How long after its close a scope still owning entries is reported (a day). */
  lingerMs: number;
}

/**
 * `resend`: the sweep re-sends now (`resends` counts this one). `wait`: within the grace period.
 * `exhausted`: re-sent `maxResends` times; `notify` is true the first time only. `lingering`: the
 * close is older than `lingerMs`, reported once per close. A true `notify` or `lingering` is a
 * claim: no other sweep is told to send that notice until it is confirmed or released. `none`: that close is no longer in force.
 */
export type ResendDecision =
  | { kind: "resend" | "wait"; resends: number; lingering: boolean }
  | { kind: "exhausted"; resends: number; lingering: boolean; notify: boolean }
  | { kind: "none" };

/**
 * What the sweep confirms after a claim, only for what actually went out (docs/design.md, "Lost
 * destroys"): the re-send's count once its destroys were sent, a notice's time once it was queued.
 */
export interface ResendConfirm {
  deliveryId: string;
  resends?: number;
  lingeringAt?: number;
  exhaustedAt?: number;
  /** Notices whose send failed: their claims are given back, so the next sweep tells. */
  released?: Array<"lingering" | "exhausted">;
}

/** The RPC surface with its declared result types (RPC typing flattens the unions otherwise). */
export interface ScopeStateApi {
  read(req: { scope: string }): Promise<ScopeStateView>;
  applyEvent(req: { scope: string } & ScopeEvent): Promise<Result<ApplyOutcome>>;
  markEnqueued(req: { deliveryId: string }): Promise<void>;
  /** The close that set the current state, if its destroys were never confirmed enqueued. */
  unconfirmedClose(req: { scope: string }): Promise<ScopeEvent | null>;
  /** Decides and records, in one step, whether the sweep re-sends the close's destroys now. */
  claimResend(req: ResendAsk): Promise<ResendDecision>;
  /** Records what the sweep sent after a claim; a claim alone only blocks another sweep. */
  confirmResend(req: ResendConfirm): Promise<void>;
  /** Dedupe and deployment order of a platform event, in one step ("The platform door"). */
  applyPlatformEvent(req: { scope: string } & PlatformEvent): Promise<Result<PlatformOutcome>>;
  /** The receiver confirms the event's apply is on the queue; a redelivery then queues nothing. */
  markPlatformEnqueued(req: { eventId: string }): Promise<void>;
  /** The receiver could not queue the event's apply: its redelivery is a new event. */
  forgetPlatformEvent(req: { eventId: string }): Promise<void>;
}
