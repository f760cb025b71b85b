/**
 * What the platform door records of the events it does not act on (docs/design.md, "The platform
 * door"; layout: docs/storage.md, "Audit trail").
 *
 * - A **signed** event that registers nothing because of what it says — a production deploy, a
 *   target the connection does not name, another project's or repository's deployment, one that
 *   names no scope — or whose queued apply failed for good, is an R2 record
 *   (`audit/platform-events/<ms>-<platform>-<event>.json`, listed by `GET /v1/audit`): only the
 *   platform (or whoever holds the connection's secret) can make one, which an admin wants to know.
 * - An event refused **before its signature checked out** (too large, unknown project, forged,
 *   unsigned) is a structured log line (`platform-event-refused`, Workers Logs), never a stored
 *   object: whoever can reach the URL could otherwise write storage at will.
 */
import { z } from "zod";
import type { Env } from "../../shared/env";

export const PLATFORM_AUDIT_PREFIX = "audit/platform-events/";

export const platformEventAuditSchema = z.object({
  platform: z.enum(["vercel", "netlify"]),
  connection: z.string(),
  repository: z.object({ id: z.number().int(), name: z.string() }),
  /** `<platform>:<id>` as deduplicated. */
  eventId: z.string(),
  /** The platform's event type, e.g. `deployment.created`, `deploy_created`. */
  type: z.string(),
  deployment: z.string().nullable(),
  scope: z.string().nullable(),
  /** `ignored` (acknowledged, nothing to do), `refused` (403), `apply-failed` (the queued apply, for good). */
  outcome: z.enum(["ignored", "refused", "apply-failed"]),
  /** e.g. `platform.production`, `platform.repository`. */
  rule: z.string(),
  reason: z.string(),
  /** The receiver's (or the consumer's) clock (ms). */
  at: z.number().int(),
});
export type PlatformEventAudit = z.infer<typeof platformEventAuditSchema>;

/** Written, or logged when the write fails: the answer to the platform does not depend on it. */
export async function auditPlatformEvent(env: Env, record: PlatformEventAudit): Promise<void> {
  const id = record.eventId.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 140);
  const key = `${PLATFORM_AUDIT_PREFIX}${record.at}-${id}-${record.outcome}.json`;
  try {
    await env.RECEIPTS.put(key, JSON.stringify(record), {
      httpMetadata: { contentType: "application/json" },
    });
  } catch (err) {
    console.error(
      JSON.stringify({
        event: "platform-audit-failed",
        key,
        error: err instanceof Error ? err.message : String(err),
      }),
    );
  }
  console.warn(JSON.stringify({ event: "platform-event-audited", ...record }));
}

/** An event refused before its signature checked out: a log line, nothing stored. */
export function logUnsignedRefusal(record: {
  platform: "vercel" | "netlify";
  status: number;
  rule: string;
  /** What the unverified body claims (a project or site id), for the operator; never trusted. */
  claimed: string | null;
}): void {
  console.warn(JSON.stringify({ event: "platform-event-refused", ...record }));
}
