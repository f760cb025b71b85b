/**
 * Write combining (docs/design.md, "Write combining: the lock object's side"): a run queued for a
 * parent lock hands the lock object the item changes it wants to make there; the holder of the lease
 * takes them, writes them with its own in one provider write, and reports what became of each.
 * The lock object keeps these as data from our own engine, yet bounds them: a lock object must not be
 * blown up by a queue of them.
 */
import { z } from "zod";
import { ERROR_CODES } from "../errors";
import { leaseGrantSchema } from "./lock";
import { locatorSchema, ownerChangeSchema } from "./ownership";
import { MAX_QUEUED_CHANGES, queuedWaiterSchema } from "./queued-change";

export {
  MAX_QUEUED_CHANGES,
  type QueuedChange,
  type QueuedWaiter,
  queuedChangeSchema,
  queuedChangesSchema,
  queuedWaiterSchema,
} from "./queued-change";

/** At most this many waiters reported on in one report (a queue longer than this is taken in parts). */
export const MAX_COMBINE_REPORTS = 256;
/** Owner changes of one report: a few per change (add, not-foreign, foreign marks of a first look). */
export const MAX_COMBINE_OWNER_CHANGES = 20_000;

const MAX_ID_CHARS = 2_048;
const MAX_FIELD_CHARS = 1_024;

const bounded = (max: number) => z.string().max(max);

/**
 * What the holder's write did for one change: `written` (the write added or removed it), `already`
 * (it was already as wanted), `shared` (another owner keeps it on the list), `foreign` (it was there
 * before the service, never removed), `left` (a remove the ownership rules left in place).
 */
export const combinedOutcomeSchema = z.object({
  id: bounded(MAX_ID_CHARS),
  outcome: z.enum(["written", "already", "shared", "foreign", "left"]),
});
export type CombinedOutcome = z.infer<typeof combinedOutcomeSchema>;

const errorInfoSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: bounded(8_192),
  detail: z.record(z.string(), z.unknown()).optional(),
  retriable: z.boolean().optional(),
});

/** A change the holder could not apply: it goes back to its waiter, which writes it itself. */
export const returnedChangeSchema = z.object({ id: bounded(MAX_ID_CHARS), error: errorInfoSchema });
export type ReturnedChange = z.infer<typeof returnedChangeSchema>;

/** What a waiter is told about changes written for it: by which run, under which token. */
export const combinedAnswerSchema = z.object({
  /** The run whose lease wrote them (the holder's id). */
  by: z.string(),
  /**
   * The holder's repository: a waiter of another is never told the holder's run (docs/security.md,
   * "Repository isolation"). Absent from an answer stored before it was recorded: taken as another's.
   */
  repository: z.number().int().optional(),
  token: z.number().int().positive(),
  outcomes: z.array(combinedOutcomeSchema),
});
export type CombinedAnswer = z.infer<typeof combinedAnswerSchema>;

/** The holder's report on one waiter's changes: each is either applied or returned. */
export const combineReportSchema = z.object({
  waiter: bounded(MAX_FIELD_CHARS),
  applied: z.array(combinedOutcomeSchema).max(MAX_QUEUED_CHANGES),
  returned: z.array(returnedChangeSchema).max(MAX_QUEUED_CHANGES),
});
export type CombineReport = z.infer<typeof combineReportSchema>;

export const reportCombinedBodySchema = z.object({
  reports: z.array(combineReportSchema).max(MAX_COMBINE_REPORTS),
  ownerChanges: z.array(ownerChangeSchema).max(MAX_COMBINE_OWNER_CHANGES).optional(),
  locator: locatorSchema.optional(),
  /** The holder's repository, told to each waiter with its answer (combinedAnswerSchema). */
  repository: z.number().int().optional(),
});
export type ReportCombinedBody = z.infer<typeof reportCombinedBodySchema>;

export const takenQueueSchema = z.object({ waiters: z.array(queuedWaiterSchema) });
export type TakenQueue = z.infer<typeof takenQueueSchema>;

/**
 * The answer to a waiter that brought changes: a grant (it writes what is left itself; `combined`
 * names what was already written for it, if anything), or no grant and every change written.
 */
export const grantOrCombinedSchema = z.object({
  grant: leaseGrantSchema.nullable(),
  combined: combinedAnswerSchema.nullable(),
  /**
   * With a grant: a holder took this waiter's changes and its lease ended without a report, so
   * they may have been written; the waiter keeps their intents whatever happens next.
   */
  taken: z.boolean().optional(),
});
export type GrantOrCombined = z.infer<typeof grantOrCombinedSchema>;
