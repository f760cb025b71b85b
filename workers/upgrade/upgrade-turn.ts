/**
 * The budget and resume mark of upgrade passes (docs/upgrading.md, "The upgrade pass"). A pass
 * takes at most `budget` scopes (each costs a lease and a few R2 or object calls; a key that waits
 * for an operator costs none and is not counted), so one sweep's calls stay bounded whatever is
 * left; what it did not reach the next pass takes. The mark is the last key each part took: the
 * next pass starts after it and goes round to the keys before, so a scope left busy, failed or for
 * an operator is never in front of the ones behind it, and a pass with budget to spare takes every
 * key whatever the mark says (a lost or stale mark only changes the order). Deleted in 0.4.0.
 */
import { z } from "zod";

/**
 * Scopes one pass takes at most: about 300 calls (acquire, reads, writes, release) besides the
 * listings, within a Cron invocation's subrequests beside the sweep's other parts.
 */
export const UPGRADE_BUDGET = 50;

/** Where a pass leaves the last key each part took (`null`: start at the first). */
export const UPGRADE_RESUME_KEY = "upgrade/resume.json";

const markSchema = z.object({ receipts: z.string().nullable(), locks: z.string().nullable() });
export type ResumeMark = z.infer<typeof markSchema>;

const NO_MARK: ResumeMark = { receipts: null, locks: null };

/** One part's share of a pass: the keys it takes in order, how many it leaves, its next mark. */
export interface Turn {
  take: string[];
  left: number;
  mark: string | null;
}

export function turnOf(keys: readonly string[], after: string | null, budget: number): Turn {
  const sorted = [...new Set(keys)].sort();
  const ordered =
    after === null ? sorted : [...sorted.filter((k) => k > after), ...sorted.filter((k) => k <= after)];
  const take = ordered.slice(0, Math.max(budget, 0));
  const left = ordered.length - take.length;
  return { take, left, mark: left === 0 ? null : (take.at(-1) ?? after) };
}

/** The mark the last pass left; an unreadable one is no mark (it only orders the keys). */
export async function readMark(bucket: R2Bucket): Promise<ResumeMark> {
  const object = await bucket.get(UPGRADE_RESUME_KEY);
  if (object === null) return NO_MARK;
  try {
    return markSchema.parse(JSON.parse(await object.text()));
  } catch {
    return NO_MARK;
  }
}

/** Written only when it changes, so a pass with nothing left to do writes nothing. */
export async function writeMark(bucket: R2Bucket, before: ResumeMark, mark: ResumeMark): Promise<void> {
  if (before.receipts === mark.receipts && before.locks === mark.locks) return;
  if (mark.receipts === null && mark.locks === null) await bucket.delete(UPGRADE_RESUME_KEY);
  else await bucket.put(UPGRADE_RESUME_KEY, JSON.stringify(mark));
}
