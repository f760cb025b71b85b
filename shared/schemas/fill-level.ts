/**
 * How full a capped list was when a run last read or wrote it under the parent lease (docs/design.md,
 * "Lists at their cap"): kept on the parent lock object, answered by the lock detail, and read by
 * the sweep's report of lists near their cap. Counts only: never an entry, a scope or a secret.
 */
import { z } from "zod";

export const fillLevelSchema = z.strictObject({
  /** The op whose list it is (its list on the object the lock guards). */
  op: z.string().min(1).max(100),
  /**
   * Which of the op's lists on the object, when it has several there (a bucket's CORS rules:
   * `rule previews`); absent when the op has one. A list is `op` and `list` together.
   */
  list: z.string().min(1).max(300).optional(),
  cap: z.number().int().positive(),
  /** Entries in the list after the run's write (or as read, when it wrote nothing there). */
  entries: z.number().int().nonnegative(),
  /** When the run saw it (epoch ms, the run's clock). */
  at: z.number().int().nonnegative(),
  /**
   * Each repository's share of the op's entries on the object, largest first, as the lock's
   * ownership counts it when read (docs/design.md, "A share of each list"): added by the lock's
   * answer, never carried by a release; absent for one of an op's several lists. `id` null: another
   * repository than a repository-bound caller's; `name` from the service's configuration.
   */
  repositories: z
    .array(
      z.strictObject({
        id: z.number().int().nullable(),
        name: z.string().optional(),
        entries: z.number().int().nonnegative(),
      }),
    )
    .max(1_000)
    .optional(),
});
export type FillLevel = z.infer<typeof fillLevelSchema>;

/**
 * One list of the object: its op, and its name when the op has several (`r2.corsOrigin/rule
 * previews`; an op name has no `/`, so the two never run together). Also in notice ids.
 */
export function listId(fill: { op: string; list?: string | undefined }): string {
  return fill.list === undefined ? fill.op : `${fill.op}/${fill.list}`;
}

/** A release carries at most this many (one per capped list of the object). */
export const fillLevelsSchema = z.array(fillLevelSchema).max(32);

/** The sweep reports a list above this share of its cap (docs/design.md, "Fill levels": above 80 %). */
export const NEAR_CAPACITY_SHARE = 0.8;

export function isNearCapacity(fill: { cap: number; entries: number }): boolean {
  return fill.entries > fill.cap * NEAR_CAPACITY_SHARE;
}

/** One list above the share, as the sweep reports it; `notify`: first report since it crossed. */
export interface NearCapacity extends FillLevel {
  lock: string;
  identity: string | null;
  notify: boolean;
}
