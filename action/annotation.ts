/**
 * The error annotation of a failed step (GitHub's `::error::`, what the checks list shows first):
 * which command on which scope, the problem's code and message — the request's refusal, the run's
 * error (its first failed line's), or what the CLI stopped at before sending anything — then what
 * to do (cli/next-step.ts) and, for a run, its dashboard page. The step summary keeps the detail.
 */
import type { RunResult } from "../cli/client";
import { nextStep } from "../cli/next-step";

export interface StepFailure {
  command: string;
  target: string;
  /** The service URL, for the run's page. */
  url: string;
  exitCode: number;
  result: RunResult | null;
  /** The problem a refused request printed (`{ error }` of the CLI's --json document). */
  problem: { code?: string; detail?: string } | undefined;
  /** What the CLI wrote to stderr: a usage mistake says `sponson: …` there. */
  stderr: string;
}

/** The run's page on the dashboard: the run id, and where its receipt lives. */
export function runLink(url: string, result: RunResult): string {
  const { run } = result;
  const query = new URLSearchParams({ environment: run.environment, scope: run.scope });
  if (run.repository) query.set("repository", run.repository.name);
  return `${url.replace(/\/+$/, "")}/dashboard/runs/${encodeURIComponent(run.id)}?${query}`;
}

/** The last `sponson: …` line the CLI wrote, without its prefix. */
function cliSaid(stderr: string): string | undefined {
  const lines = stderr.split("\n").filter((l) => l.startsWith("sponson: "));
  return lines.at(-1)?.slice("sponson: ".length);
}

export function failureAnnotation(f: StepFailure): string {
  const what = `sponson ${f.command} ${f.target}`;
  if (f.result) {
    const error = f.result.run.error ?? f.result.lines.find((l) => l.error)?.error;
    const code = error?.code ?? "FAILED";
    return [
      `${what} failed: ${code}: ${error?.message ?? "the run failed"}`,
      `What to do: ${nextStep(code)}.`,
      `Run ${f.result.run.id}: ${runLink(f.url, f.result)}`,
    ].join("\n");
  }
  if (f.problem?.code) {
    return [
      `${what} was refused: ${f.problem.code}: ${f.problem.detail ?? "(no detail)"}`,
      `What to do: ${nextStep(f.problem.code)}.`,
    ].join("\n");
  }
  const said = cliSaid(f.stderr);
  return said === undefined
    ? `${what} exited ${f.exitCode} before sending anything; the log above says why`
    : `${what} stopped before sending anything: ${said}`;
}
