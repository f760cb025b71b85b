/**
 * One object per scope (`scope-state:<repository id>/<scope>`), shared by every environment: whether the
 * scope is open or closed, at which revision (docs/design.md, "Webhooks and the sweep"). It is the strongly
 * consistent place where webhook deliveries are deduplicated and the revision guard is applied, in one
 * synchronous SQL step, so two deliveries racing for the same scope can never both win. The revision rule and
 * the tie direction are in scope-state-rules.ts.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../shared/env";
import { type ErrorInfo, fail, ok, type Result } from "../shared/errors";
import { isValidScope } from "../shared/lock-keys";
import type {
  ApplyOutcome,
  PlatformEvent,
  PlatformOutcome,
  ResendAsk,
  ResendConfirm,
  ResendDecision,
  ScopeEvent,
  ScopeStateApi,
  ScopeStateView,
} from "../shared/rpc/scope-state";
import { decideResend, type ResendRow } from "./close-resend-rules";
import {
  applyPlatformEvent,
  forgetPlatformEvent,
  markPlatformEnqueued,
  platformEventProblem,
  platformHeads,
} from "./scope-platform-events";
import { decideApply, INITIAL_STATUS, isValidRevision, type ScopeStatus } from "./scope-state-rules";
import { hasSchema, migrate } from "./scope-state-schema";

/** GitHub lets a delivery be redelivered for a few days; a month of ids is ample. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

const DELIVERY_ID_PATTERN = /^[A-Za-z0-9-]{1,100}$/;

type StateRow = {
  scope: string;
  status: ScopeStatus;
  revision: number;
  delivery_id: string | null;
  changed_at: number;
};
type DeliveryRow = { outcome: string; enqueue_pending: number };

export class ScopeState extends DurableObject<Env> implements ScopeStateApi {
  readonly #sql: SqlStorage;
  /**
   * Every new pull request's runs read their scope's state twice before any webhook event exists
   * for it; creating the schema then would be a SQLite commit (and stored bytes) per scope for
   * nothing. A schemaless object reads as the initial state; the first write creates the schema,
   * synchronously, before anything else it does (no await between: still atomic).
   */
  #migrated = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => {
      if (hasSchema(this.#sql)) this.#schema();
    });
  }

  #schema(): void {
    if (this.#migrated) return;
    migrate(this.#sql);
    this.#migrated = true;
  }

  async read(req: { scope: string }): Promise<ScopeStateView> {
    return this.#view(req.scope);
  }

  /** Dedupe, guard, write: no await between the reads and the writes, so it is atomic. */
  async applyEvent(req: { scope: string } & ScopeEvent): Promise<Result<ApplyOutcome>> {
    const invalid = checkEvent(req);
    if (invalid) return { ok: false, error: invalid };
    this.#schema();
    return ok(this.#apply(req));
  }

  #apply(req: { scope: string } & ScopeEvent): ApplyOutcome {
    const now = Date.now();
    const seen = this.#sql
      .exec<DeliveryRow>(
        "SELECT outcome, enqueue_pending FROM deliveries WHERE delivery_id = ?",
        req.deliveryId,
      )
      .toArray()[0];
    if (seen) {
      return { kind: "duplicate", state: this.#view(req.scope), enqueuePending: seen.enqueue_pending === 1 };
    }
    this.#sql.exec("DELETE FROM deliveries WHERE received_at < ?", now - DELIVERY_RETENTION_MS);
    const previous = this.#view(req.scope);
    const decision = decideApply(previous, req);
    const applied = decision.kind === "apply";
    this.#sql.exec(
      "INSERT INTO deliveries (delivery_id, status, revision, outcome, enqueue_pending, received_at) VALUES (?, ?, ?, ?, ?, ?)",
      req.deliveryId,
      req.status,
      req.revision,
      applied ? "applied" : decision.reason,
      applied && req.status === "closed" ? 1 : 0,
      now,
    );
    if (decision.kind === "ignore") return { kind: "ignored", reason: decision.reason, state: previous };
    this.#sql.exec(
      `INSERT INTO state (id, scope, status, revision, delivery_id, changed_at) VALUES (1, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, revision = excluded.revision,
         delivery_id = excluded.delivery_id, changed_at = excluded.changed_at`,
      req.scope,
      req.status,
      req.revision,
      req.deliveryId,
      now,
    );
    return { kind: "applied", state: this.#view(req.scope), previous };
  }

  /** The receiver confirms the close's destroys are on the queue; a replay then re-sends nothing. */
  async markEnqueued(req: { deliveryId: string }): Promise<void> {
    if (!this.#migrated) return; // no delivery was ever stored here
    this.#sql.exec("UPDATE deliveries SET enqueue_pending = 0 WHERE delivery_id = ?", req.deliveryId);
  }

  /**
   * The close in force whose destroys no receiver confirmed (it died, or the queue refused the
   * batch): GitHub does not redeliver, so the sweep sends them and confirms.
   */
  async unconfirmedClose(_req: { scope: string }): Promise<ScopeEvent | null> {
    if (!this.#migrated) return null; // no event was ever stored here
    const row = this.#sql
      .exec<{ revision: number; delivery_id: string }>(
        `SELECT s.revision, s.delivery_id FROM state s JOIN deliveries d ON d.delivery_id = s.delivery_id
         WHERE s.id = 1 AND s.status = 'closed' AND d.enqueue_pending = 1`,
      )
      .toArray()[0];
    return row ? { status: "closed", revision: row.revision, deliveryId: row.delivery_id } : null;
  }

  /** No await between the read and the write: two sweeps at once cannot both re-send. */
  async claimResend(ask: ResendAsk): Promise<ResendDecision> {
    if (!this.#migrated) return { kind: "none" };
    const state = this.#view("");
    if (state.status !== "closed" || state.deliveryId !== ask.deliveryId || state.changedAt === null) {
      return { kind: "none" };
    }
    const row =
      this.#sql
        .exec<ResendRow>(
          `SELECT resends, last_at AS lastAt, lingering_notified_at AS lingeringNotifiedAt,
             exhausted_notified_at AS exhaustedNotifiedAt, lingering_claimed_at AS lingeringClaimedAt,
             exhausted_claimed_at AS exhaustedClaimedAt FROM close_resends WHERE delivery_id = ?`,
          ask.deliveryId,
        )
        .toArray()[0] ?? null;
    const decision = decideResend(state.changedAt, row, ask);
    if (decision.kind === "none") return decision;
    // The claim only moves last_at and the notices' claims (blocking a concurrent sweep); the count
    // and the told flags wait for confirmResend, so a send that fails uses up nothing (docs/design.md,
    // "Lost destroys").
    const next = {
      resends: row?.resends ?? 0,
      lastAt: decision.kind === "resend" ? ask.now : (row?.lastAt ?? state.changedAt),
      lingering: row?.lingeringNotifiedAt ?? null,
      exhausted: row?.exhaustedNotifiedAt ?? null,
      lingeringClaim: decision.lingering ? ask.now : (row?.lingeringClaimedAt ?? null),
      exhaustedClaim:
        decision.kind === "exhausted" && decision.notify ? ask.now : (row?.exhaustedClaimedAt ?? null),
    };
    this.#sql.exec(
      `INSERT INTO close_resends (delivery_id, resends, last_at, lingering_notified_at, exhausted_notified_at,
         lingering_claimed_at, exhausted_claimed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (delivery_id) DO UPDATE SET resends = excluded.resends,
         last_at = excluded.last_at, lingering_notified_at = excluded.lingering_notified_at,
         exhausted_notified_at = excluded.exhausted_notified_at,
         lingering_claimed_at = excluded.lingering_claimed_at,
         exhausted_claimed_at = excluded.exhausted_claimed_at`,
      ask.deliveryId,
      next.resends,
      next.lastAt,
      next.lingering,
      next.exhausted,
      next.lingeringClaim,
      next.exhaustedClaim,
    );
    return decision;
  }

  async confirmResend(req: ResendConfirm): Promise<void> {
    if (!this.#migrated) return;
    this.#sql.exec(
      `UPDATE close_resends SET resends = MAX(resends, COALESCE(?, resends)),
         lingering_notified_at = COALESCE(lingering_notified_at, ?),
         exhausted_notified_at = COALESCE(exhausted_notified_at, ?),
         lingering_claimed_at = CASE WHEN ? THEN NULL ELSE lingering_claimed_at END,
         exhausted_claimed_at = CASE WHEN ? THEN NULL ELSE exhausted_claimed_at END WHERE delivery_id = ?`,
      req.resends ?? null,
      req.lingeringAt ?? null,
      req.exhaustedAt ?? null,
      req.released?.includes("lingering") ? 1 : 0,
      req.released?.includes("exhausted") ? 1 : 0,
      req.deliveryId,
    );
  }

  /** Dedupe and deployment order of a platform event in one step (./scope-platform-events.ts). */
  async applyPlatformEvent(req: { scope: string } & PlatformEvent): Promise<Result<PlatformOutcome>> {
    const problem = isValidScope(req.scope)
      ? platformEventProblem(req)
      : `"${req.scope}" is not a scope name`;
    if (problem) return fail("VALIDATION", problem);
    this.#schema();
    const { scope: _scope, ...event } = req;
    return ok(applyPlatformEvent(this.#sql, this.#view(req.scope).status, event, Date.now()));
  }

  async markPlatformEnqueued(req: { eventId: string }): Promise<void> {
    if (!this.#migrated) return;
    markPlatformEnqueued(this.#sql, req.eventId);
  }

  async forgetPlatformEvent(req: { eventId: string }): Promise<void> {
    if (!this.#migrated) return;
    forgetPlatformEvent(this.#sql, req.eventId);
  }

  #view(scope: string): ScopeStateView {
    if (!this.#migrated) return { scope, ...INITIAL_STATUS, deliveryId: null, changedAt: null };
    const row = this.#sql
      .exec<StateRow>("SELECT scope, status, revision, delivery_id, changed_at FROM state WHERE id = 1")
      .toArray()[0];
    const heads = platformHeads(this.#sql);
    const platform = heads === undefined ? {} : { platformHeads: heads };
    if (!row) return { scope, ...INITIAL_STATUS, deliveryId: null, changedAt: null, ...platform };
    return {
      scope: row.scope,
      status: row.status,
      revision: row.revision,
      deliveryId: row.delivery_id,
      changedAt: row.changed_at,
      ...platform,
    };
  }
}

/** RPC input is checked here too: the object must not store what the guard cannot compare. */
function checkEvent(req: { scope: string } & ScopeEvent): ErrorInfo | null {
  const invalid = (message: string) => (fail("VALIDATION", message) as { error: ErrorInfo }).error;
  if (!isValidScope(req.scope)) return invalid(`"${req.scope}" is not a scope name`);
  if (req.status !== "open" && req.status !== "closed") return invalid("status must be open or closed");
  if (!isValidRevision(req.revision)) return invalid("revision must be a positive integer (epoch ms)");
  if (!DELIVERY_ID_PATTERN.test(req.deliveryId)) {
    return invalid("deliveryId must be 1 to 100 letters, digits or dashes");
  }
  return null;
}
