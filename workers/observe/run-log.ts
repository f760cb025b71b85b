/**
 * One structured log line per run (docs/operations.md, "Logs"): what Workers Logs
 * (`[observability]` in wrangler.toml) keep and can be queried by field. Names, counts and timings
 * only, and the whole line redacted: a provenance field is the caller's text.
 */
import type { RunResult } from "../../shared/schemas/run";

export interface RunLogLine {
  event: "run";
  runId: string;
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
  counts: RunResult["counts"];
  timings: RunResult["timings"];
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
