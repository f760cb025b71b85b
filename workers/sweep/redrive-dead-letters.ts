/**
 * Puts destroys parked in R2 by the dead-letter consumer back on the destroy queue (docs/design.md,
 * "Webhooks and the sweep"; layout: docs/storage.md, "Dead letters"). Send first, delete second: a
 * crash in between re-sends one destroy later, which is harmless (destroys are idempotent and
 * re-check the scope state), whereas the other order could lose it.
 *
 * Every parked letter is reached: the sweep pages through them with R2's cursor, at most
 * REDRIVE_BUDGET letters a sweep (so one sweep's R2 and queue calls stay bounded), and a sweep that
 * stops at its budget leaves the last key it handled for the next one to start after. A letter no
 * sweep would ever re-drive (./dead-letter-fate.ts) is moved to the audit trail with its reason
 * rather than left where it was, so it is never in front of one that will be. A letter whose read,
 * send or move failed stays where it is for the next sweep, and fails the invocation (its report
 * names it).
 */
import type { Env } from "../../shared/env";
import {
  recordSetAside,
  SET_ASIDE_RAW_MAX,
  type SetAsideReason,
  setAsideKey,
} from "../audit/set-aside-letters";
import { configFromEnv } from "../config/config";
import { DEAD_LETTER_PREFIX, deadLetterSchema } from "../queue/dead-letters";
import { parseQueuedJob } from "../queue/queued-destroy";
import { type Configured, type Fate, letterFate, type ReadLetter } from "./dead-letter-fate";

export { DEAD_LETTER_MAX_AGE_MS, MAX_REDRIVES } from "./dead-letter-fate";

/**
 * Parked letters one sweep handles at most: each costs at most three calls (read; send or record;
 * delete), so about 300 calls and one list page, well inside a Cron invocation's subrequests and
 * time beside the sweep's other parts. A backlog larger than this drains over several sweeps.
 */
export const REDRIVE_BUDGET = 100;

/** Where a sweep that stopped at its budget leaves the last key it handled: `{ after, at }`. */
export const REDRIVE_RESUME_KEY = "sweep/dead-letters-resume.json";

/** R2 answers at most this many keys a page. */
const LIST_PAGE_MAX = 1000;

export interface RedriveReport {
  redriven: string[];
  /** Moved to the audit trail (`to`), never to be re-driven. */
  setAside: Array<{ key: string; to: string; reason: SetAsideReason }>;
  /** Left where they are for the next sweep: a read, a send or a move failed. */
  failed: Array<{ key: string; error: string }>;
  /** The key the next sweep starts after; null when this one reached the last letter. */
  resumeAfter: string | null;
}

export async function redriveDeadLetters(
  env: Env,
  now: number,
  budget = REDRIVE_BUDGET,
): Promise<RedriveReport> {
  // Read before anything is moved: a setting that cannot be read sets nothing aside (the part fails).
  const config = configFromEnv(env);
  const configured: Configured = {
    repositoryIds: new Set(config.repositories.map((r) => r.id)),
    environments: new Set(config.environments),
  };
  const report: RedriveReport = { redriven: [], setAside: [], failed: [], resumeAfter: null };
  const after = await resumeMark(env);
  let cursor: string | undefined;
  let handled = 0;
  let last: string | null = null;
  let more = false;
  do {
    const page = await env.RECEIPTS.list({
      prefix: DEAD_LETTER_PREFIX,
      limit: Math.min(LIST_PAGE_MAX, budget - handled),
      ...(cursor !== undefined ? { cursor } : after !== null ? { startAfter: after } : {}),
    });
    for (const object of page.objects) {
      handled += 1;
      last = object.key;
      await handle(env, object.key, object.uploaded.getTime(), { configured, now, report });
    }
    more = page.truncated;
    cursor = page.truncated ? page.cursor : undefined;
  } while (more && handled < budget);
  report.resumeAfter = more ? last : null;
  await saveResumeMark(env, report, after, now);
  return report;
}

interface Sweep {
  configured: Configured;
  now: number;
  report: RedriveReport;
}

async function handle(env: Env, key: string, parkedAt: number, { configured, now, report }: Sweep) {
  try {
    const stored = await env.RECEIPTS.get(key);
    if (stored === null) return; // another sweep got there first
    const text = await stored.text();
    const fate = letterFate(readLetter(env, text), configured, now);
    if (fate.kind === "redrive") {
      const redrives = (fate.job.redrives ?? 0) + 1;
      await env.DESTROY_QUEUE.send({ ...fate.job, redrives }, { contentType: "json" });
      await env.RECEIPTS.delete(key);
      report.redriven.push(key);
      return;
    }
    const to = setAsideKey(key, parkedAt, DEAD_LETTER_PREFIX);
    await recordSetAside(env, to, setAsideRecord(key, text, fate, now));
    await env.RECEIPTS.delete(key);
    report.setAside.push({ key, to, reason: fate.reason });
    console.warn(
      JSON.stringify({ event: "dead-letter-set-aside", key, to, reason: fate.reason, detail: fate.detail }),
    );
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    report.failed.push({ key, error });
    console.error(JSON.stringify({ event: "dead-letter-redrive-failed", key, error }));
  }
}

function readLetter(env: Env, text: string): ReadLetter {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { unparseable: "not JSON" };
  }
  const letter = deadLetterSchema.safeParse(json);
  if (!letter.success) return { unparseable: `not a parked letter: ${issues(letter.error.issues)}` };
  const job = parseQueuedJob(env, letter.data.body);
  if (!job.success)
    return { unparseable: `its body is not a destroy or a platform apply: ${issues(job.error.issues)}` };
  return { letter: letter.data, job: job.data };
}

function issues(list: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return list.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ");
}

function setAsideRecord(key: string, text: string, fate: Extract<Fate, { kind: "set-aside" }>, now: number) {
  const { job } = fate;
  let letter: unknown;
  try {
    letter = JSON.parse(text);
  } catch {
    letter = undefined;
  }
  return {
    key,
    reason: fate.reason,
    detail: fate.detail,
    ...(job ? { repositoryId: job.repositoryId, environment: job.environment, scope: job.scope } : {}),
    ...(letter === undefined ? { raw: text.slice(0, SET_ASIDE_RAW_MAX) } : { letter }),
    actor: "sweep" as const,
    at: now,
  };
}

async function resumeMark(env: Env): Promise<string | null> {
  const stored = await env.RECEIPTS.get(REDRIVE_RESUME_KEY);
  const mark =
    stored === null ? null : ((await stored.json().catch(() => null)) as { after?: unknown } | null);
  const after = mark?.after;
  return typeof after === "string" && after.startsWith(DEAD_LETTER_PREFIX) ? after : null;
}

/** A mark that cannot be saved only makes the next sweep start over; it is named like a letter. */
async function saveResumeMark(env: Env, report: RedriveReport, before: string | null, now: number) {
  try {
    if (report.resumeAfter !== null)
      await env.RECEIPTS.put(REDRIVE_RESUME_KEY, JSON.stringify({ after: report.resumeAfter, at: now }), {
        httpMetadata: { contentType: "application/json" },
      });
    else if (before !== null) await env.RECEIPTS.delete(REDRIVE_RESUME_KEY);
  } catch (err) {
    report.failed.push({ key: REDRIVE_RESUME_KEY, error: err instanceof Error ? err.message : String(err) });
  }
}
