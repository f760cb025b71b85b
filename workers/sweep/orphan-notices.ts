/**
 * Tells operators about each orphan the sweep finds (docs/operations.md, "Notifications"), once:
 * the ids told are kept in R2, replaced each sweep by the ones still found, so an orphan that is
 * removed and comes back is told again, and one that stays is not told every ten minutes. An id is
 * kept only once its notice was queued (or its kind is off), so a failed send is retried.
 */
import type { Env } from "../../shared/env";
import type { Orphan } from "../../shared/schemas/orphans";
import { notify } from "../notify/notify";

export const ORPHANS_TOLD_KEY = "notifications/orphans-told.json";

async function orphanId(o: Orphan): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`${o.parent}\n${o.op}\n${o.key}`),
  );
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function notifyNewOrphans(env: Env, orphans: Orphan[], now: number): Promise<number> {
  const stored = await env.RECEIPTS.get(ORPHANS_TOLD_KEY);
  const previous: unknown = stored ? await stored.json().catch(() => []) : [];
  const told = new Set(Array.isArray(previous) ? previous.filter((x) => typeof x === "string") : []);
  const current: string[] = [];
  let sent = 0;
  for (const orphan of orphans) {
    const id = await orphanId(orphan);
    if (told.has(id)) {
      current.push(id);
      continue;
    }
    const outcome = await notify(env, {
      id: `orphan-found:${id}`,
      kind: "orphan-found",
      at: now,
      summary: `an entry on ${orphan.parent} that no scope owns (GET /v1/orphans; remove with POST /v1/orphans/remove)`,
      subject: {
        parent: orphan.parent,
        op: orphan.op,
        key: orphan.key.slice(0, 1000),
        connection: orphan.connection,
      },
    });
    // Remembered only once queued (or switched off): a failed send is tried again next sweep.
    if (outcome !== "queued" && outcome !== "off") continue;
    current.push(id);
    sent += 1;
  }
  if (sent > 0 || current.length !== told.size) {
    await env.RECEIPTS.put(ORPHANS_TOLD_KEY, JSON.stringify(current), {
      httpMetadata: { contentType: "application/json" },
    });
  }
  return sent;
}
