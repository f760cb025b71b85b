/**
 * What a waiter queues for a parent lock's holder to write (docs/design.md, "Write combining: the
 * lock object's side"), apart from the rest of write combining's schemas (combine.ts) so a lease
 * grant (lock.ts), which hands a holder the queue it took, can name them without an import cycle.
 */
import { z } from "zod";

const MAX_ID_CHARS = 2_048;
const MAX_FIELD_CHARS = 1_024;
const MAX_PARAMS = 32;

const bounded = (max: number) => z.string().max(max);

/** At most this many changes per waiter: one run's lines on one parent object. */
export const MAX_QUEUED_CHANGES = 200;

/** One item change a waiter wants made on the parent object: its line's intent, as data. */
export const queuedChangeSchema = z.object({
  /**
   * Unique within the waiter, e.g. `${op}\n${key}` (the item on this object); outcomes name the change by it, and a stored
   * answer is matched to a re-joining waiter's changes by it, so one id always means one change.
   */
  id: bounded(MAX_ID_CHARS).min(1),
  action: z.enum(["create", "remove"]),
  op: bounded(MAX_FIELD_CHARS),
  key: bounded(MAX_ID_CHARS),
  params: z
    .record(bounded(MAX_FIELD_CHARS), bounded(MAX_ID_CHARS))
    .refine((p) => Object.keys(p).length <= MAX_PARAMS, `at most ${MAX_PARAMS} params`),
  connection: bounded(MAX_FIELD_CHARS),
  /** The waiter's scope as `ownerOf` names it: whose ownership the holder records. */
  owner: bounded(MAX_FIELD_CHARS),
  environment: bounded(MAX_FIELD_CHARS),
  runId: bounded(MAX_FIELD_CHARS),
  /**
   * A create of an item the waiter's ledger already names, which it claims back (docs/design.md,
   * "Evicting stale scopes"): decided as the waiter's own entry, never as a person's.
   */
  inLedger: z.literal(true).optional(),
});
export type QueuedChange = z.infer<typeof queuedChangeSchema>;

export const queuedChangesSchema = z
  .array(queuedChangeSchema)
  .max(MAX_QUEUED_CHANGES)
  .refine(
    (changes) => new Set(changes.map((c) => c.id)).size === changes.length,
    "change ids must be unique",
  );

/** One waiter's queued changes, as the holder takes them. */
export const queuedWaiterSchema = z.object({ waiter: z.string(), changes: z.array(queuedChangeSchema) });
export type QueuedWaiter = z.infer<typeof queuedWaiterSchema>;
