/**
 * One structured log line per run (docs/operations.md, "Logs"): what Workers Logs
 * (`[observability]` in wrangler.toml) keep and can be queried by field. Names, counts and timings
 * only, and the whole line redacted: a provenance field is the caller's text.
 */
import type { RunResult } from "../../shared/schemas/run";
import type { ScopeRequest } from "../engine/engine";

export interface RunLogLine {
  event: "run";
  /** null for a run refused before it started (no run was recorded). */
  runId: string | null;
  repositoryId: number | null;
  repository: string | null;
  environment: string;
  scope: string;
  action: string;
  status: string;
  /** The error code of a failed run (never its message: a provider's text may echo a value). */
  error: string | null;
  skipped: boolean;
  provenance: {
    actor: string | null;
    event: string | null;
    ref: string | null;
    sha: string | null;
    runUrl: string | null;
    declared: boolean;
  } | null;
  /** Lines per result (created, removed, unchanged, failed, skipped, …), and the run's call counts. */
  lines: Record<string, number>;
  counts: RunResult["counts"] | null;
  timings: RunResult["timings"] | null;
}

export function runLogLine(result: RunResult): RunLogLine {
  const { run } = result;
  const lines: Record<string, number> = {};
  for (const line of result.lines) lines[line.result] = (lines[line.result] ?? 0) + 1;
  const p = run.provenance;
  return {
    event: "run",
    runId: run.id,
    repositoryId: run.repository?.id ?? null,
    repository: run.repository?.name ?? null,
    environment: run.environment,
    scope: run.scope,
    action: run.action,
    status: run.status,
    error: run.error?.code ?? null,
    skipped: run.skipped !== undefined,
    provenance: p
      ? { actor: p.actor, event: p.event, ref: p.ref, sha: p.sha, runUrl: p.runUrl, declared: p.declared }
      : null,
    lines,
    counts: result.counts,
    timings: result.timings,
  };
}

/**
 * A run refused before it started (a problem thrown: validation, policy, a connection it may not
 * use): the same line with status `refused` and the code, so a query by status counts refusals
 * too. No run id (none was recorded), no lines, counts or timings.
 */
export function refusedRunLine(req: ScopeRequest, action: string, code: string): RunLogLine {
  const p = req.provenance;
  return {
    event: "run",
    runId: null,
    repositoryId: req.repository.id,
    repository: req.repository.name,
    environment: req.environment,
    scope: req.scope,
    action,
    status: "refused",
    error: code,
    skipped: false,
    provenance: p
      ? { actor: p.actor, event: p.event, ref: p.ref, sha: p.sha, runUrl: p.runUrl, declared: p.declared }
      : null,
    lines: {},
    counts: null,
    timings: null,
  };
}
