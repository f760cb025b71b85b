/**
 * One run's bookkeeping: its id (the lease holder everywhere), the per-line results as they happen
 * (emitted as NDJSON events), drift, warnings, and what it created (what rollback undoes).
 */
import { type ErrorInfo, isSponsonError } from "../../../shared/errors";
import { type Provenance, type RunOrigin, unknownProvenance } from "../../../shared/schemas/provenance";
import type { RunAction, RunRecord } from "../../../shared/schemas/receipt";
import type { RepositoryRef } from "../../../shared/schemas/repository";
import type { Drift, LineResult, RunResult, Waiting } from "../../../shared/schemas/run";
import type { Emit } from "../deps";
import { type ItemRef, sameItem } from "../plan/item";
import type { RunMetrics } from "./run-metrics";

export function newRunId(now: number): string {
  // Sortable by start time, unique without coordination.
  return `run-${now.toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
}

/**
 * What an answer says of an error. A SponsonError says its own code and message; anything else is
 * a bug or a platform failure nobody expected: the answer says only "internal error" (its message
 * may hold anything), and the error is logged once, with `where` it happened and its stack, so it
 * is never silent (docs/design.md, "Errors").
 */
export function errorInfo(err: unknown, where?: ErrorSite): ErrorInfo {
  if (isSponsonError(err)) return err.toInfo();
  logUnexpected(err, where);
  return { code: "INTERNAL", message: "internal error" };
}

/** Where an unexpected error happened: the run, the plan lines it hit, and how to log it. */
export interface ErrorSite {
  runId?: string;
  lines?: readonly string[];
  log?: (message: string) => void;
}

const logged = new WeakSet<object>();

/** A not-attempted line's diff: the change the run had planned for it. */
const PLANNED_DIFF = {
  create: "create",
  remove: "delete",
  keep: "unchanged",
} as const satisfies Record<NonNullable<LineResult["planned"]>, LineResult["diff"]>;

function logUnexpected(err: unknown, { runId, lines, log = console.error }: ErrorSite = {}): void {
  // One error reaches several answers (every line of a group, then the run): log it once.
  if (typeof err === "object" && err !== null) {
    if (logged.has(err)) return;
    logged.add(err);
  }
  const at = [runId ? `run ${runId}` : null, lines?.length ? `line ${lines.join(", ")}` : null]
    .filter(Boolean)
    .join(", ");
  const detail = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  log(`unexpected error${at ? ` in ${at}` : ""}: ${detail}`);
}

/** What a run is started with. */
export interface RunStart {
  id: string;
  action: RunAction;
  /** The scope it runs on, and where it comes from. */
  req: { repository: RepositoryRef; environment: string; scope: string; provenance?: Provenance };
  emit: Emit;
  metrics: RunMetrics;
}

export class Run {
  readonly id: string;
  readonly action: RunAction;
  readonly repository: RepositoryRef;
  readonly environment: string;
  readonly scope: string;
  readonly startedAt: number;
  /** Where the run comes from (docs/design.md, "Provenance"). */
  readonly provenance: Provenance;
  readonly lines: LineResult[] = [];
  readonly drift: Drift[] = [];
  readonly warnings: string[] = [];
  /** Items this run created (or joined), in order: what its rollback takes away again. */
  readonly created: ItemRef[] = [];
  /** Where the run's time went so far; the result and the record carry a snapshot. */
  readonly metrics: RunMetrics;
  readonly #emit: Emit;
  readonly #log: (message: string) => void;
  #error: ErrorInfo | undefined;
  #skipped: string | undefined;
  #noReceipt = false;
  /** Runs whose writes carried some of this run's changes (write combining). */
  readonly #combinedBy = new Set<string>();

  constructor(start: RunStart, now: number, log: (message: string) => void = console.error) {
    const { id, action, req: address, emit, metrics } = start;
    const { environment, scope } = address;
    this.id = id;
    this.action = action;
    this.repository = { id: address.repository.id, name: address.repository.name };
    this.environment = environment;
    this.scope = scope;
    this.startedAt = now;
    this.provenance = address.provenance ?? unknownProvenance(false);
    this.#emit = emit;
    this.#log = log;
    this.metrics = metrics;
    emit({ type: "run", run: { id: this.id, repository: this.repository, environment, scope, action } });
  }

  /** The run as the locks it asks for keep it (shared/schemas/provenance.ts RunOrigin). */
  get origin(): RunOrigin {
    return originOf(this);
  }

  get failed(): boolean {
    return this.#error !== undefined || this.lines.some((l) => l.result === "failed");
  }

  line(result: LineResult): void {
    // One result per item of a line: an edited line may create one item and remove another.
    const at = this.lines.findIndex((l) => l.id === result.id && sameItem(l, result));
    if (at >= 0) this.lines[at] = result;
    else this.lines.push(result);
    this.#emit({ type: "line", line: result });
  }

  /** Puts the results of `ids` in that order (a plan's), ahead of the others, as they came. */
  orderLines(ids: readonly string[]): void {
    const rank = (l: LineResult) => {
      const at = ids.indexOf(l.id);
      return at < 0 ? ids.length : at;
    };
    const sorted = [...this.lines].sort((a, b) => rank(a) - rank(b));
    this.lines.splice(0, this.lines.length, ...sorted);
  }

  missing(drift: Drift): void {
    this.drift.push(drift);
    this.#emit({ type: "drift", drift });
  }

  warn(message: string): void {
    this.warnings.push(message);
    this.#emit({ type: "warning", message });
  }

  /** The run is queued for a lock (reported, never recorded: the result says what came of it). */
  waiting(report: Waiting): void {
    this.#emit({ type: "waiting", waiting: report });
  }

  /** The run decided not to act (e.g. a queued destroy whose scope was reopened). */
  skip(reason: string): void {
    this.#skipped = reason;
    this.warn(`skipped: ${reason}`);
  }

  /** The scope has no receipt: the run had nothing to act on, and says so (a mistyped scope?). */
  noReceipt(message: string): void {
    this.#noReceipt = true;
    this.warn(message);
  }

  /** Another run's write carried some of this run's changes. */
  combinedBy(runId: string): void {
    this.#combinedBy.add(runId);
  }

  get skipped(): string | undefined {
    return this.#skipped;
  }

  /** `errorInfo` for an error met by this run (at `lines`), logged through the run's log. */
  errorOf(err: unknown, lines?: readonly string[]): ErrorInfo {
    return errorInfo(err, { runId: this.id, ...(lines ? { lines } : {}), log: this.#log });
  }

  fail(err: unknown): void {
    const info = this.errorOf(err);
    this.#error ??= info;
  }

  /**
   * Every line of `planned` without a result yet was never attempted (the run stopped first): it
   * says so, with the change the run had planned for it (docs/design.md, "Run algorithm", step 6),
   * which is its diff too.
   */
  notReached(
    planned: ReadonlyArray<
      Pick<LineResult, "id" | "op" | "key" | "parent"> & { planned: NonNullable<LineResult["planned"]> }
    >,
  ): void {
    for (const line of planned) {
      if (this.lines.some((l) => l.id === line.id && sameItem(l, line))) continue;
      this.line({
        ...line,
        diff: PLANNED_DIFF[line.planned],
        result: "not-attempted",
        reason: "not attempted: the run stopped at an earlier line or step",
      });
    }
  }

  get error(): LineResult["error"] {
    return this.#error ?? this.lines.find((l) => l.error)?.error;
  }

  record(now: number): RunRecord {
    const error = this.error;
    return {
      id: this.id,
      action: this.action,
      status: this.failed ? "failed" : "succeeded",
      startedAt: this.startedAt,
      finishedAt: now,
      created: this.created.map((c) => c.key),
      provenance: this.provenance,
      ...(error ? { error } : {}),
      ...(this.#skipped ? { skipped: this.#skipped } : {}),
      ...(this.#combinedBy.size > 0 ? { combinedBy: [...this.#combinedBy] } : {}),
      // As far as the run got before it was recorded: the receipt write that records it comes after.
      timings: this.metrics.timings(),
      counts: this.metrics.counts(),
    };
  }

  result(now: number): RunResult {
    const error = this.error;
    const result: RunResult = {
      run: {
        id: this.id,
        repository: this.repository,
        environment: this.environment,
        scope: this.scope,
        action: this.action,
        status: this.failed ? "failed" : "succeeded",
        startedAt: this.startedAt,
        finishedAt: now,
        provenance: this.provenance,
        ...(error ? { error } : {}),
        ...(this.#skipped ? { skipped: this.#skipped } : {}),
        ...(this.#noReceipt ? { noReceipt: true as const } : {}),
      },
      lines: this.lines,
      drift: this.drift,
      warnings: this.warnings,
      timings: this.metrics.timings(),
      counts: this.metrics.counts(),
    };
    this.#emit({ type: "result", result });
    return result;
  }
}

/** A run's origin for the locks, before or after its Run exists (the scope lease comes first). */
export function originOf(req: {
  repository: RepositoryRef;
  environment: string;
  scope: string;
  provenance?: Provenance;
}): RunOrigin {
  return {
    repositoryId: req.repository.id,
    repository: req.repository.name,
    scope: `${req.environment}/${req.scope}`,
    provenance: req.provenance ?? unknownProvenance(false),
  };
}
