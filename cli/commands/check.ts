/**
 * `config check` and `plan check`: offline checks that print every problem at once, each with its
 * path, and exit 0 (nothing to fix) or 1. Nothing is sent anywhere.
 *
 * `config check` reads the vars a deployment would have: `[vars]` of a wrangler.toml (tables are
 * JSON vars, as wrangler binds them) and an env file (KEY=value lines: the Worker secrets, and any
 * var kept out of wrangler.toml), the env file winning. Without an env file the secrets cannot be
 * seen, so their presence is not checked (the deployed service's GET /v1/config/status does).
 * It also names every binding, migration and rate limiter the Worker needs that the config lacks.
 */
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { parse as parseToml } from "smol-toml";
import { didYouMean } from "../../shared/did-you-mean";
import { PLACEHOLDER, PLACEHOLDER_NAMES, VAR_NAME, varOf } from "../../shared/placeholders";
import {
  duplicateLineIds,
  type Line,
  lineSchema,
  MAX_PLAN_LINES,
  planSchema,
} from "../../shared/schemas/plan";
import { itemShapeProblems } from "../../shared/url-shape";
import { ADAPTERS } from "../../workers/adapters";
import { type ConfigProblem, checkConfig } from "../../workers/config/config-report";
import {
  inLineOrder,
  type PlanProblem,
  paramIssueText,
  showValue,
} from "../../workers/engine/plan/param-problem";
import { queueNames } from "../../workers/queue/queue-names";
import { CliError, type ExitCode } from "../cli-error";
import { type Invocation, stringFlag, varsOf } from "../context";
import { knownQueues, missingBindings } from "./wrangler-needs";

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new CliError(2, `cannot read the ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
}

interface WranglerConfig {
  config: Record<string, unknown>;
  vars: Record<string, unknown>;
  /** The queues it consumes, when it names any. */
  consumed: string[] | null;
}

/** `[vars]` of a wrangler config (tables and arrays become the JSON wrangler would bind), its queues. */
function readWrangler(path: string): WranglerConfig {
  let config: Record<string, unknown>;
  try {
    config = parseToml(readText(path, "wrangler config")) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(
      2,
      `the wrangler config ${path} is not TOML: ${(err as Error).message.split("\n")[0]}`,
    );
  }
  const vars = (config.vars ?? {}) as Record<string, unknown>;
  const consumers = (config.queues as { consumers?: Array<{ queue?: unknown }> } | undefined)?.consumers;
  return {
    config,
    vars: Object.fromEntries(
      Object.entries(vars).map(([k, v]) => [
        k,
        typeof v === "object" && v !== null ? JSON.stringify(v) : String(v),
      ]),
    ),
    consumed: consumers ? consumers.map((c) => String(c.queue)) : null,
  };
}

/**
 * A consumed queue the Worker does not tell apart (workers/queue/queue-handler.ts) is a mistake; a
 * missing consumer is a missing binding (wrangler-needs.ts).
 */
function queueProblems(consumed: string[] | null, vars: Record<string, unknown>): ConfigProblem[] {
  if (consumed === null) return [];
  const { destroys, deadLetters, notifications, notificationDeadLetters } = queueNames(vars);
  const known = knownQueues(vars);
  return consumed
    .filter((name) => !known.has(name))
    .map((name) => ({
      path: "queues.consumers",
      message: `queue ${name} is consumed but is none of SPONSON_DESTROY_QUEUE (${destroys}), SPONSON_DEAD_LETTER_QUEUE (${deadLetters}), SPONSON_NOTIFY_QUEUE (${notifications}), SPONSON_NOTIFY_DEAD_LETTER_QUEUE (${notificationDeadLetters})`,
    }));
}

function subcommand(inv: Invocation): void {
  const given = inv.positionals[0];
  if (given !== "check")
    throw new CliError(
      2,
      `${given === undefined ? "" : `unknown subcommand "${given}".${didYouMean(given, ["check"])} `}usage: sponson ${inv.command} check …  (run \`sponson ${inv.command} --help\`)`,
    );
}

function printProblems(inv: Invocation, subject: string, problems: ConfigProblem[], extra: object): ExitCode {
  if (inv.flags.json === true) {
    inv.io.stdout.write(`${JSON.stringify({ valid: problems.length === 0, problems, ...extra }, null, 2)}\n`);
  } else if (problems.length === 0) {
    inv.io.stdout.write(`${subject}: no problems\n`);
  } else {
    const lines = problems.map((p) => `  ${p.path}: ${p.message}`);
    inv.io.stdout.write(
      `${subject}: ${problems.length} problem${problems.length === 1 ? "" : "s"}\n${lines.join("\n")}\n`,
    );
  }
  return problems.length === 0 ? 0 : 1;
}

export async function configCommand(inv: Invocation): Promise<ExitCode> {
  subcommand(inv);
  const configPath = stringFlag(inv, "wrangler") ?? stringFlag(inv, "config") ?? "wrangler.toml";
  const envFile = stringFlag(inv, "env-file");
  const wrangler = readWrangler(configPath);
  const vars: Record<string, unknown> = { ...wrangler.vars };
  if (envFile !== undefined) Object.assign(vars, parseEnv(readText(envFile, "env file")));
  const report = checkConfig(vars, { secretsKnown: envFile !== undefined });
  report.problems.push(...missingBindings(wrangler.config, vars), ...queueProblems(wrangler.consumed, vars));
  const subject = envFile === undefined ? configPath : `${configPath} + ${envFile}`;
  if (envFile === undefined && inv.flags.json !== true)
    inv.io.stderr.write("note: no --env-file: whether each Worker secret is set is not checked\n");
  if (inv.flags.json !== true)
    for (const { environment, rules } of report.urlCheckOptOuts)
      inv.io.stderr.write(
        `note: environment ${environment} opts out of the URL shape check: ${rules.join(", ")} (SPONSON_POLICY.environments.${environment}.urlChecks)\n`,
      );
  if (inv.flags.json !== true)
    for (const { path, message } of report.warnings) inv.io.stderr.write(`warning: ${path}: ${message}\n`);
  return printProblems(inv, subject, report.problems, {
    warnings: report.warnings,
    vars: report.vars,
    connections: report.connections,
    urlCheckOptOuts: report.urlCheckOptOuts,
  });
}

/** Stand-in values: any value of the right shape, so the op's params schema judges the rest. */
const SAMPLE: Record<(typeof PLACEHOLDER_NAMES)[number], string> = {
  environment: "preview",
  scope: "pr-1",
  pr: "1",
  branch: "example-branch",
  branchSlug: "example-branch",
  sha: "0".repeat(40),
  shortSha: "0".repeat(7),
};

/**
 * `{vars.<name>}` in a param: the `--var` value in the item param, a problem anywhere else or when
 * no `--var` gives it (as the service refuses both).
 */
function fillVar(
  whole: string,
  name: string,
  vars: Readonly<Record<string, string>>,
  where: { isItem: boolean; itemParam: string | undefined },
): { value: string } | { problem: string } {
  if (!VAR_NAME.test(name))
    return { problem: `${whole} is not a var name (a lowercase letter, then up to 31 of a-z 0-9 _)` };
  if (!where.isItem)
    return {
      problem: `${whole}: vars fill only the line's item param (${where.itemParam ?? "the op's"}), never a param naming the provider object`,
    };
  const value = Object.hasOwn(vars, name) ? vars[name] : undefined;
  return value === undefined
    ? { problem: `${whole} is not defined: pass --var ${name}=<a value of the right shape>` }
    : { value };
}

/** Where a line's problems are reported: `lines.<i>(<id>)`. */
const lineAt = (index: number, id: string) => `lines.${index}(${id})`;

/**
 * Every problem of a plan that needs no service, all at once and in line order: its shape (a
 * malformed line is named and the lines around it still checked), duplicate line ids, ops,
 * placeholders (with `vars`), each op's params (the value after filling, and a fix:
 * workers/engine/plan/param-problem.ts), and the URL shape check on each item with every rule on.
 */
export function planProblems(plan: unknown, vars: Readonly<Record<string, string>> = {}): ConfigProblem[] {
  const found: PlanProblem[] = [];
  const malformed = new Set<number>();
  const parsed = planSchema.safeParse(plan);
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const index = issue.path[0] === "lines" && typeof issue.path[1] === "number" ? issue.path[1] : -1;
      if (index >= 0) malformed.add(index);
      found.push({
        line: null,
        index,
        path: ["plan", ...issue.path.map(String)].join("."),
        message: issue.message,
      });
    }
  const given = (plan as { lines?: unknown } | null)?.lines;
  const lines: Array<{ line: Line; index: number }> = [];
  if (Array.isArray(given))
    given.slice(0, MAX_PLAN_LINES).forEach((raw, index) => {
      const line = malformed.has(index) ? null : lineSchema.safeParse(raw);
      if (line?.success) lines.push({ line: line.data, index });
    });
  for (const { index, id, first } of duplicateLineIds(lines.map((l) => l.line))) {
    const at = lines[index]?.index ?? index;
    found.push({
      line: id,
      index: at,
      path: `${lineAt(at, id)}.id`,
      message: `duplicate line id "${id}": line ${lines[first]?.index ?? first} has it already`,
    });
  }
  for (const { line, index } of lines) found.push(...lineProblems(line, index, vars));
  return inLineOrder(found).map(({ path, message }) => ({ path, message }));
}

const OPS = new Map(ADAPTERS.flatMap((a) => a.ops.map((op) => [op.name, op] as const)));

/** One well-formed line's problems: its op, placeholders, params and item shape. */
function lineProblems(line: Line, index: number, vars: Readonly<Record<string, string>>): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const at = lineAt(index, line.id);
  const add = (path: string, message: string) => problems.push({ line: line.id, index, path, message });
  const op = OPS.get(line.op);
  if (!op)
    add(
      `${at}.op`,
      `unknown op "${line.op}".${didYouMean(line.op, OPS.keys())} Known: ${[...OPS.keys()].sort().join(", ")}`,
    );
  const params: Record<string, string> = {};
  /** Params left with a placeholder in them: its problem is theirs, not the params schema's. */
  const unfilled = new Set<string>();
  for (const [key, value] of Object.entries(line.params)) {
    params[key] = value.replace(PLACEHOLDER, (whole, name: string) => {
      const varName = varOf(name);
      if (varName !== null) {
        const filled = fillVar(whole, varName, vars, {
          isItem: op !== undefined && key === op.itemParam,
          itemParam: op?.itemParam,
        });
        if ("value" in filled) return filled.value;
        add(`${at}.params.${key}`, filled.problem);
        unfilled.add(key);
        return whole;
      }
      if (Object.hasOwn(SAMPLE, name)) return SAMPLE[name as keyof typeof SAMPLE];
      unfilled.add(key);
      add(
        `${at}.params.${key}`,
        `unknown placeholder ${whole}; known: ${PLACEHOLDER_NAMES.map((n) => `{${n}}`).join(", ")}`,
      );
      return whole;
    });
  }
  if (!op) return problems;
  const checked = op.params.safeParse(params);
  if (!checked.success) {
    for (const issue of checked.error.issues.filter((i) => !unfilled.has(String(i.path[0])))) {
      const key = issue.path[0];
      const path = [`${at}.params`, ...issue.path.map(String)].join(".");
      if (typeof key !== "string" || issue.path.length !== 1 || !Object.hasOwn(params, key)) {
        add(path, issue.message);
        continue;
      }
      add(
        path,
        paramIssueText({
          schema: op.params,
          params,
          key,
          template: line.params[key] ?? "",
          expected: issue.message,
          fill: (name) => {
            const v = varOf(name);
            if (v !== null) return Object.hasOwn(vars, v) ? vars[v] : undefined;
            return Object.hasOwn(SAMPLE, name) ? SAMPLE[name as keyof typeof SAMPLE] : undefined;
          },
          show: showValue,
        }),
      );
    }
    return problems;
  }
  const item = checked.data[op.itemParam];
  if (item === undefined || unfilled.has(op.itemParam)) return problems;
  for (const problem of itemShapeProblems(item))
    add(`${at}.params.${op.itemParam}`, `${problem.rule}: ${problem.message}`);
  return problems;
}

export async function planCommand(inv: Invocation): Promise<ExitCode> {
  subcommand(inv);
  varsOf(inv);
  const path = inv.positionals[1];
  if (path === undefined) throw new CliError(2, "usage: sponson plan check <plan.json>");
  let plan: unknown;
  try {
    plan = JSON.parse(readText(path, "plan"));
  } catch (err) {
    if (err instanceof CliError) throw err;
    return printProblems(inv, path, [{ path: "plan", message: `not JSON: ${(err as Error).message}` }], {});
  }
  const lines = Array.isArray((plan as { lines?: unknown }).lines)
    ? (plan as { lines: unknown[] }).lines.length
    : 0;
  return printProblems(
    inv,
    `${path} (${lines} line${lines === 1 ? "" : "s"})`,
    planProblems(plan, varsOf(inv)),
    {},
  );
}
