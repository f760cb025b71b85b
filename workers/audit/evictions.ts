/** Evictions in the audit trail (docs/design.md, "Evicting stale scopes"). */
import type { Env } from "../../shared/env";
import type { EvictionAudit } from "../../shared/schemas/eviction";

export const EVICTION_AUDIT_PREFIX = "audit/evictions/";

export async function recordEviction(env: Env, record: EvictionAudit): Promise<void> {
  // The time first, so keys list in time order (audit-trail.ts, readNewest).
  const key = `${EVICTION_AUDIT_PREFIX}${record.at}-${crypto.randomUUID()}.json`;
  await env.RECEIPTS.put(key, JSON.stringify(record), { httpMetadata: { contentType: "application/json" } });
}
