/**
 * What a run answers (docs/api.md, "A run's answer"): the run, one result per line, drift, as JSON or NDJSON
 * events.
 */
import { z } from "zod";
import { lockHolderSchema, provenanceSchema } from "./provenance";
import { errorInfoSchema, runActionSchema } from "./receipt";
import { type RepositoryRef, repositoryRefSchema } from "./repository";
import { runCountsSchema, runTimingsSchema } from "./run-metrics";

export { type RunCounts, type RunTimings, runCountsSchema, runTimingsSchema } from "./run-metrics";

export const diffSchema = z.enum(["unchanged", "create", "delete"]);
export type Diff = z.infer<typeof diffSchema>;

export const lineOutcomeSchema = z.enum([
  "unchanged",
  "created",
  /** The item was there, wanted by other scopes: this scope joined its owners. */
  "shared",
  /** The item was there before any scope claimed it: this scope owns it, and it is never removed. */
  "foreign",
  "removed",
  /** Others still want the item (or it is foreign): this scope let go, the entry stays. */
  "released",
  "would-create",
  "would-remove",
  /** The name services before `not-attempted` gave a line the run never got to; none sends it now. */
  "skipped",
  /**
   * The run never got to the line (an earlier object failed, or recovery did): nothing was written
   * for it; `planned` says what the run was going to do (docs/design.md, "Run algorithm").
   */
  "not-attempted",
  "failed",
  "rolled-back",
]);
export type LineOutcome = z.infer<typeof lineOutcomeSchema>;

export const lineResultSchema = z.object({
  id: z.string(),
  op: z.string(),
  key: z.string(),
  diff: diffSchema,
  result: lineOutcomeSchema,
  parent: z.string().nullable(),
  error: errorInfoSchema.optional(),
  /** The run whose provider write carried this line's change (write combining), when not this run. */
  writtenBy: z.string().optional(),
  /** Why a line was `not-attempted`: the run stopped at an earlier line or step. */
  reason: z.string().optional(),
  /**
   * A `not-attempted` line's change the run had planned (`diff` says the same): `create`, `remove`
   * (a destroy's entry), or `keep` — an item the ledger holds and the run had not found gone,
   * which it writes only if a read finds it gone (docs/design.md, "Run algorithm", step 6).
   */
  planned: z.enum(["create", "remove", "keep"]).optional(),
});
export type LineResult = z.infer<typeof lineResultSchema>;

export const driftSchema = z.object({
  line: z.string(),
  key: z.string(),
  kind: z.literal("missing"),
  parent: z.string().nullable(),
});
export type Drift = z.infer<typeof driftSchema>;

export const runInfoSchema = z.object({
  id: z.string(),
  /** The repository the scope belongs to (always sent; optional for clients of older servers). */
  repository: repositoryRefSchema.optional(),
  environment: z.string(),
  scope: z.string(),
  action: runActionSchema,
  status: z.enum(["succeeded", "failed"]),
  startedAt: z.number().int(),
  finishedAt: z.number().int(),
  /** Where the run comes from (docs/design.md, "Provenance"; always sent; optional for older servers). */
  provenance: provenanceSchema.optional(),
  error: errorInfoSchema.optional(),
  /** Why the run decided not to act, e.g. a queued destroy whose scope was reopened. */
  skipped: z.string().optional(),
  /** A destroy or rollback of a scope that has no receipt: nothing was there to do (a mistyped scope?). */
  noReceipt: z.literal(true).optional(),
});
export type RunInfo = z.infer<typeof runInfoSchema>;

export const runResultSchema = z.object({
  run: runInfoSchema,
  lines: z.array(lineResultSchema),
  drift: z.array(driftSchema),
  warnings: z.array(z.string()),
  /** Where the run's time went, in ms (always sent; optional for clients of older servers). */
  timings: runTimingsSchema.optional(),
  /** How many calls of each kind the run made (always sent; optional as `timings`). */
  counts: runCountsSchema.optional(),
});
export type RunResult = z.infer<typeof runResultSchema>;

/**
 * A queued run's report (docs/design.md, "Lock answers"): which lock, who holds it (as this run may
 * see it), its place in the queue (1 next), how long it has waited for this lock so far and what is
 * left of the run's one wait budget.
 */
export const waitingSchema = z.object({
  lock: z.string(),
  /** The provider object a parent lock guards; null for a scope lock. */
  identity: z.string().nullable(),
  holder: lockHolderSchema.nullable(),
  position: z.number().int().positive(),
  waitedMs: z.number().int().nonnegative(),
  /**
   * What is left of the run's wait budget (`waitTimeoutSeconds`), one deadline for every lock it
   * waits on (docs/design.md, "Lease protocol"). Absent from a service of the version before.
   */
  budgetLeftMs: z.number().int().nonnegative().optional(),
});
export type Waiting = z.infer<typeof waitingSchema>;

/** NDJSON stream events, one per line as the run happens, the result last. */
export type RunEvent =
  | {
      type: "run";
      run: { id: string; repository?: RepositoryRef; environment: string; scope: string; action: string };
    }
  | { type: "line"; line: LineResult }
  | { type: "drift"; drift: Drift }
  | { type: "warning"; message: string }
  /** The run is queued for a lock: when it starts waiting and then every 15 s (WAITING_REPORT_MS). */
  | { type: "waiting"; waiting: Waiting }
  | { type: "result"; result: RunResult }
  | { type: "error"; error: { code: string; message: string; detail?: Record<string, unknown> } }
  /** Sent by the HTTP layer while a streamed run is still going: carries nothing, keeps the line alive. */
  | { type: "keepalive" };
