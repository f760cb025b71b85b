/**
 * Every audit record as a notification of kind `audit` (docs/operations.md, "The audit stream"),
 * for a SIEM that takes signed webhooks: the sweep reads the stream (./audit-stream.ts) from where
 * it last stopped and queues one notification per record, the record in it. One place for every
 * writer of the trail (routes, the lock objects' hold expiries, the engine's evictions), and the
 * stream's settle window keeps a record written late from being passed.
 *
 * Off unless an operator opts in (`"kinds": { "audit": true }`). Switched on, it starts at the
 * newest record already written: the history is in `GET /v1/audit?cursor=`. Delivery is at least
 * once: the position is saved only after the sends it covers, so a sweep that dies re-sends, and a
 * receiver drops a repeat by `id`. A send that fails stops the pass there; the next sweep goes on
 * from that record. Two sweeps at once may both send a record; the position is saved with a
 * condition on the one read, so neither moves it backwards.
 */
import { z } from "zod";
import type { Env } from "../../shared/env";
import type { Notification } from "../notify/notification";
import { notify } from "../notify/notify";
import { kindEnabled, notifyConfigFromEnv } from "../notify/notify-config";
import {
  type AuditPosition,
  auditPage,
  decodeCursor,
  encodeCursor,
  type StreamedEntry,
  settledEnd,
} from "./audit-stream";
import type { AuditEntry } from "./audit-trail";

/** Where the forwarder keeps its position: outside every audit prefix, so it is no record itself. */
export const AUDIT_FORWARD_STATE = "notifications/audit-forwarded.json";
/** At most this many records per sweep: a backlog drains over a few sweeps, never one long one. */
export const AUDIT_FORWARD_MAX = 500;
const PAGE = 100;
/** A queue message is at most 128 KB: a record bigger than this is sent without its body. */
const RECORD_MAX_BYTES = 100_000;

const stateSchema = z.object({ cursor: z.string() });

export type ForwardReport =
  | { status: "off" }
  | {
      status: "forwarded";
      sent: number;
      /** The record a failed send stopped at (sent again by the next sweep). */
      stoppedAt?: string;
      /** False when another sweep moved the position meanwhile (this pass's sends are repeats at worst). */
      saved: boolean;
    };

export async function forwardAudit(env: Env, now: number): Promise<ForwardReport> {
  if (!kindEnabled(notifyConfigFromEnv(env), "audit")) return { status: "off" };
  const stored = await env.RECEIPTS.get(AUDIT_FORWARD_STATE);
  const state = stored ? stateSchema.safeParse(await stored.json().catch(() => null)) : null;
  let position: AuditPosition | null = state?.success
    ? decodeCursor(state.data.cursor)
    : await settledEnd(env.RECEIPTS, now);
  let sent = 0;
  let stoppedAt: string | undefined;
  for (let more = true; more && sent < AUDIT_FORWARD_MAX && stoppedAt === undefined; ) {
    const page = await auditPage(env.RECEIPTS, { after: position, limit: PAGE, now });
    for (const entry of page.entries) {
      const outcome = await notify(env, auditNotification(entry));
      if (outcome !== "queued" && outcome !== "off") {
        stoppedAt = entry.record;
        break;
      }
      position = { at: entry.writtenAt, key: entry.record };
      sent += 1;
    }
    // A page of records that were no entries (unreadable) moves past them all.
    if (stoppedAt === undefined && page.entries.length === 0 && page.cursor !== "")
      position = decodeCursor(page.cursor);
    more = page.more && page.entries.length > 0;
  }
  const cursor = position === null ? "" : encodeCursor(position);
  const saved = await env.RECEIPTS.put(AUDIT_FORWARD_STATE, JSON.stringify({ cursor }), {
    httpMetadata: { contentType: "application/json" },
    onlyIf: stored ? { etagMatches: stored.etag } : { etagDoesNotMatch: "*" },
  });
  return { status: "forwarded", sent, saved: saved !== null, ...(stoppedAt ? { stoppedAt } : {}) };
}

/** One line a person reads (Slack shows it); the record itself rides along for machines. */
export function auditSummary(e: AuditEntry): string {
  switch (e.kind) {
    case "force-release":
      return `force-release of ${e.key} by ${e.actor}: ${e.reason} (${e.status})`;
    case "orphan-removal":
      return `orphan removal of ${e.key} on ${e.parent} by ${e.actor}: ${e.reason} (${e.status})`;
    case "hold":
      return `hold ${e.action} on ${e.key}${e.actor ? ` by ${e.actor}` : ""}${e.reason ? `: ${e.reason}` : ""}`;
    case "token-mint":
      return `${e.role} token minted for ${e.subject} by ${e.actor}${e.reason ? `: ${e.reason}` : ""}`;
    case "token-revocation":
      return `token ${e.jti} revoked by ${e.actor}: ${e.reason}`;
    case "webhook-refused":
      return `webhook delivery ${e.delivery} for ${e.repository.name} ${e.scope} refused (${e.rule})`;
    case "destroy-resend":
      return `destroys of ${e.scope} re-sent by the sweep (attempt ${e.attempt})`;
    case "eviction":
      return `entries of ${e.environment}/${e.scope} evicted by ${e.actor} (${e.reason})`;
    case "dead-letter-set-aside":
      return `parked destroy ${e.key} set aside by the sweep (${e.reason}: ${e.detail})`;
    case "adoption":
      return `entries of ${e.parent} adopted into ${e.environment} scopes by ${e.actor} (${e.status})`;
    case "platform-event":
      return `${e.platform} event ${e.eventId} of ${e.connection} ${e.outcome}: ${e.reason} (${e.rule})`;
  }
}

function auditNotification(entry: StreamedEntry): Notification {
  const { cursor: _cursor, ...record } = entry;
  const whole = JSON.stringify(record).length <= RECORD_MAX_BYTES;
  // What the dashboard link is found by (workers/notify/dashboard-link.ts): the lock, the object, the scope.
  const lock = entry.kind === "force-release" || entry.kind === "hold" ? entry.key : undefined;
  const parent = entry.kind === "orphan-removal" ? entry.parent : undefined;
  // The entry a provider list held: named as a fact, so Slack shows it as a key (../notify/slack-text.ts).
  const key = entry.kind === "orphan-removal" ? entry.key : undefined;
  const scope = "scope" in entry && typeof entry.scope === "string" ? entry.scope : undefined;
  const environment =
    "environment" in entry && typeof entry.environment === "string" ? entry.environment : undefined;
  return {
    // One per written version: an intent and its completion are two records.
    id: `audit:${entry.record}@${entry.writtenAt}`.slice(0, 300),
    kind: "audit",
    at: entry.writtenAt,
    summary: auditSummary(entry).slice(0, 500),
    subject: {
      kind: entry.kind,
      record: entry.record.slice(0, 1000),
      ...(lock ? { lock: lock.slice(0, 1000) } : {}),
      ...(parent ? { parent: parent.slice(0, 1000) } : {}),
      ...(key ? { key: key.slice(0, 1000) } : {}),
      ...(environment ? { environment } : {}),
      ...(scope ? { scope } : {}),
      ...(whole ? {} : { recordOmitted: true }),
    },
    ...(whole ? { record } : {}),
  };
}
