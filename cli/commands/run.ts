/** `apply`, `preview`, `destroy`, `rollback`: one run, streamed as it happens. */
import { readFileSync } from "node:fs";
import { applyBodySchema } from "../../shared/schemas/requests";
import { CliError, type ExitCode } from "../cli-error";
import { ApiError, type RunAction, type RunBody, type RunResult } from "../client";
import {
  clientFor,
  environmentOf,
  type Invocation,
  scopeOf,
  shaOf,
  stringFlag,
  varsOf,
  waitOptions,
} from "../context";
import { progress } from "../progress";
import { provenanceFromEnv } from "../provenance";
import { runPrinter, runText, timingsText } from "../render";
import { DEFAULT_RETRY_SECONDS, withRetries } from "../retry";
import { appendSummary, refusedSummary, runSummary } from "../step-summary";

function readPlan(inv: Invocation): unknown {
  const path = stringFlag(inv, "plan");
  if (!path)
    throw new CliError(2, `--plan <file> is required\nRun \`sponson ${inv.command} --help\` for usage.`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new CliError(2, `cannot read the plan ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  let plan: unknown;
  try {
    plan = JSON.parse(text);
  } catch (err) {
    throw new CliError(2, `the plan ${path} is not JSON: ${(err as Error).message}`);
  }
  // The service checks again (and its write policy); checking here names the file's mistake early.
  const parsed = applyBodySchema.shape.plan.safeParse(plan);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(plan)"}: ${i.message}`);
    throw new CliError(2, `the plan ${path} is not valid:\n${issues.join("\n")}`);
  }
  return plan;
}

function bodyFor(inv: Invocation, action: RunAction): RunBody<RunAction> {
  const from = declared(inv);
  switch (action) {
    case "apply":
      return {
        plan: readPlan(inv) as RunBody<"apply">["plan"],
        ...commit(inv),
        ...varsBody(inv),
        ...waitOptions(inv),
        ...from,
        ...(inv.flags["allow-empty"] === true ? { allowEmpty: true } : {}),
      };
    case "preview":
      return { plan: readPlan(inv) as RunBody<"preview">["plan"], ...commit(inv), ...varsBody(inv), ...from };
    case "destroy":
      return { ...waitOptions(inv), ...from };
    case "rollback": {
      const runId = stringFlag(inv, "run");
      return { ...(runId ? { runId } : {}), ...waitOptions(inv), ...from };
    }
  }
}

/** `--var`s as the body's `vars`; none sends no field (an older service refuses unknown fields). */
function varsBody(inv: Invocation): { vars?: Record<string, string> } {
  const vars = varsOf(inv);
  return Object.keys(vars).length === 0 ? {} : { vars };
}

/** Where the run comes from, from GITHUB_* (docs/cli.md; the service ignores it for GitHub tokens). */
function declared(inv: Invocation): { provenance?: NonNullable<ReturnType<typeof provenanceFromEnv>> } {
  const provenance = provenanceFromEnv(inv.io.env);
  return provenance === undefined ? {} : { provenance };
}

function commit(inv: Invocation): { sha?: string } {
  const sha = shaOf(inv.io.env);
  return sha === undefined ? {} : { sha };
}

/**
 * How long retriable refusals are retried: the wait timeout the command names, else
 * $SPONSON_RETRY_SECONDS, else 60 s. 0 turns retries off.
 */
function retryBudgetSeconds(inv: Invocation): number {
  const named = waitOptions(inv).waitTimeoutSeconds;
  if (named !== undefined) return named;
  const fromEnv = inv.io.env.SPONSON_RETRY_SECONDS;
  if (fromEnv !== undefined && fromEnv !== "") {
    if (!/^\d+$/.test(fromEnv))
      throw new CliError(2, `SPONSON_RETRY_SECONDS must be whole seconds, not "${fromEnv}"`);
    return Number(fromEnv);
  }
  return DEFAULT_RETRY_SECONDS;
}

function planLines(body: RunBody<RunAction>): number | null {
  const plan = (body as { plan?: { lines?: unknown[] } }).plan;
  return Array.isArray(plan?.lines) ? plan.lines.length : null;
}

export async function runCommand(inv: Invocation, action: RunAction): Promise<ExitCode> {
  const environment = environmentOf(inv);
  const scope = scopeOf(inv) as string;
  const body = bodyFor(inv, action);
  const client = await clientFor(inv);
  const { stdout, stderr, env } = inv.io;
  const json = inv.flags.json === true;
  const target = `${environment}/${scope}`;
  // With --json stdout carries exactly one document; the lines go to stderr for people.
  const shown = progress(json ? stderr : stdout, stderr, `${action} ${target}`, planLines(body));

  let result: RunResult;
  let streamed = false;
  const eventText = runPrinter();
  try {
    result = await withRetries(
      () =>
        client.run(action, environment, scope, body, (event) => {
          streamed = true;
          if (event.type === "line") shown.tick();
          const text = eventText(event);
          if (text !== null && event.type !== "error") shown.print(text);
        }),
      {
        budgetMs: retryBudgetSeconds(inv) * 1000,
        isApiError: (err): err is ApiError => err instanceof ApiError,
        onRetry: (err, delayMs, attempt) =>
          shown.print(`  ${err.code}: ${err.message}; retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s`),
      },
    );
  } catch (err) {
    shown.stop();
    if (err instanceof ApiError) {
      appendSummary(env.GITHUB_STEP_SUMMARY, refusedSummary(action, target, err));
      if (json)
        stdout.write(
          `${JSON.stringify({ error: err.problem ?? { code: err.code, detail: err.message } }, null, 2)}\n`,
        );
    }
    throw err;
  }
  // A service that answered one JSON document instead of a stream: print the run after the fact.
  if (!streamed) for (const line of runText(result)) shown.print(line);
  if (inv.flags.verbose === true) for (const line of timingsText(result)) shown.print(line);
  shown.stop();
  appendSummary(env.GITHUB_STEP_SUMMARY, runSummary(result));
  if (json) stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (result.run.status !== "succeeded") return 1;
  // A destroy or rollback of a scope with no receipt did nothing: its warning is printed above.
  return result.run.noReceipt === true ? 3 : 0;
}
