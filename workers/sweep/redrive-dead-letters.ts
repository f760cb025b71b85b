/**
 * Puts destroys parked in R2 by the dead-letter consumer back on the destroy queue. Send first,
 * delete second: a crash in between re-sends one destroy later, which is harmless (destroys are
 * idempotent and re-check the scope state), whereas the other order could lose it. A job re-driven
 * MAX_REDRIVES times stays parked and is reported: it needs a human, not another loop.
 */
import type { Env } from "../../shared/env";
import { DEAD_LETTER_PREFIX, deadLetterSchema } from "../queue/dead-letters";
import { parseQueuedDestroy } from "../queue/queued-destroy";

export const MAX_REDRIVES = 3;
export const REDRIVE_BATCH_LIMIT = 100;

export interface RedriveReport {
  redriven: string[];
  stuck: string[];
  unusable: string[];
}

export async function redriveDeadLetters(env: Env): Promise<RedriveReport> {
  const report: RedriveReport = { redriven: [], stuck: [], unusable: [] };
  const listing = await env.RECEIPTS.list({ prefix: DEAD_LETTER_PREFIX, limit: REDRIVE_BATCH_LIMIT });
  for (const object of listing.objects) {
    const stored = await env.RECEIPTS.get(object.key);
    if (stored === null) continue; // another sweep got there first
    const letter = deadLetterSchema.safeParse(await stored.json().catch(() => null));
    const job = letter.success ? parseQueuedDestroy(env, letter.data.body) : null;
    if (!job?.success) {
      report.unusable.push(object.key);
      continue;
    }
    const redrives = job.data.redrives ?? 0;
    if (redrives >= MAX_REDRIVES) {
      report.stuck.push(object.key);
      continue;
    }
    await env.DESTROY_QUEUE.send({ ...job.data, redrives: redrives + 1 }, { contentType: "json" });
    await env.RECEIPTS.delete(object.key);
    report.redriven.push(object.key);
  }
  return report;
}
