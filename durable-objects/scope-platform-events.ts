/**
 * The scope-state object's platform events (docs/design.md, "The platform door"): module-level
 * functions on its SQL storage, which the object calls with no await in between, so deduplication,
 * the deployment order and the write are one synchronous step and two deliveries racing for one
 * scope can never both win. The order itself is decided in ./platform-head-rules.ts.
 */
import type { PlatformEvent, PlatformHead, PlatformOutcome, ScopeStatus } from "../shared/rpc/scope-state";
import { decidePlatformEvent } from "./platform-head-rules";

/** Platforms may redeliver for hours or days; a month of event ids is ample (as for GitHub's). */
export const PLATFORM_EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export const PLATFORM_EVENT_ID = /^(vercel|netlify):[A-Za-z0-9_.-]{1,100}$/;
export const DEPLOYMENT_ID = /^[A-Za-z0-9_-]{1,100}$/;

type HeadRow = { connection: string; deployment_id: string; created_at: number };

export function platformHeads(sql: SqlStorage): Record<string, PlatformHead> | undefined {
  const rows = sql
    .exec<HeadRow>("SELECT connection, deployment_id, created_at FROM platform_heads ORDER BY connection")
    .toArray();
  if (rows.length === 0) return undefined;
  return Object.fromEntries(
    rows.map((r) => [r.connection, { deploymentId: r.deployment_id, createdAt: r.created_at }]),
  );
}

function headOf(sql: SqlStorage, connection: string): PlatformHead | null {
  return platformHeads(sql)?.[connection] ?? null;
}

/** Dedupe, order, write; the caller holds no await across it. */
export function applyPlatformEvent(
  sql: SqlStorage,
  status: ScopeStatus,
  event: PlatformEvent,
  now: number,
): PlatformOutcome {
  const seen = sql
    .exec<{ enqueue_pending: number; received_at: number }>(
      "SELECT enqueue_pending, received_at FROM platform_events WHERE event_id = ?",
      event.eventId,
    )
    .toArray()[0];
  if (seen) {
    return {
      kind: "duplicate",
      enqueuePending: seen.enqueue_pending === 1,
      receivedAt: seen.received_at,
      head: headOf(sql, event.connection),
    };
  }
  sql.exec("DELETE FROM platform_events WHERE received_at < ?", now - PLATFORM_EVENT_RETENTION_MS);
  const decision = decidePlatformEvent(status, headOf(sql, event.connection), {
    deploymentId: event.deploymentId,
    createdAt: event.createdAt,
  });
  const accepted = decision.kind === "accepted";
  sql.exec(
    `INSERT INTO platform_events (event_id, connection, deployment_id, created_at, outcome, enqueue_pending, received_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    event.eventId,
    event.connection,
    event.deploymentId,
    event.createdAt,
    accepted ? "accepted" : decision.reason,
    accepted ? 1 : 0,
    now,
  );
  if (accepted && decision.reason !== "same-deployment") {
    sql.exec(
      `INSERT INTO platform_heads (connection, deployment_id, created_at, event_id, changed_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (connection) DO UPDATE SET deployment_id = excluded.deployment_id,
         created_at = excluded.created_at, event_id = excluded.event_id, changed_at = excluded.changed_at`,
      event.connection,
      event.deploymentId,
      event.createdAt,
      event.eventId,
      now,
    );
  }
  return decision;
}

export function markPlatformEnqueued(sql: SqlStorage, eventId: string): void {
  sql.exec("UPDATE platform_events SET enqueue_pending = 0 WHERE event_id = ?", eventId);
}

/**
 * The apply of an accepted event could not be queued: the event is forgotten, so the platform's
 * redelivery is taken as new (the deployment, still the head, is accepted again as the same one).
 */
export function forgetPlatformEvent(sql: SqlStorage, eventId: string): void {
  sql.exec("DELETE FROM platform_events WHERE event_id = ? AND enqueue_pending = 1", eventId);
}

/** RPC input is checked: the object must not store what it cannot compare. */
export function platformEventProblem(event: PlatformEvent): string | null {
  if (!PLATFORM_EVENT_ID.test(event.eventId)) return "eventId must be <platform>:<id>";
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(event.connection))
    return "connection is not a connection name";
  if (!DEPLOYMENT_ID.test(event.deploymentId)) return "deploymentId must be 1 to 100 letters, digits, _ or -";
  if (!Number.isSafeInteger(event.createdAt) || event.createdAt <= 0)
    return "createdAt must be a positive integer (epoch ms)";
  return null;
}
