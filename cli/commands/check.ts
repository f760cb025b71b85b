/**
 * `config check` and `plan check`: offline checks that print every problem at once, each with its
 * path, and exit 0 (nothing to fix) or 1. Nothing is sent anywhere.
 *
 * `config check` reads the vars a deployment would have (deployment-vars.ts): `[vars]` of a
 * wrangler.toml (tables are JSON vars, as wrangler binds them), the Worker secrets by name
 * (`--secret-names`, `wrangler secret list`'s JSON) and an env file (KEY=value lines), the env file
 * winning. With neither, the secrets cannot be seen, so their presence is not checked (the deployed
 * service's GET /v1/config/status does). It also names every binding, migration and rate limiter
 * the Worker needs that the config lacks, a `main` wrangler would not find, and every example value
 * left in (placeholders.ts, warnings). */
import { parse as parseToml } from "smol-toml";
import { didYouMean } from "../../shared/did-you-mean";
import { PLACEHOLDER, PLACEHOLDER_NAMES, VAR_NAME, varOf } from "../../shared/placeholders";
import { planSchema } from "../../shared/schemas/plan";
import { itemShapeProblems } from "../../shared/url-shape";
import { ADAPTERS } from "../../workers/adapters";
import { type ConfigProblem, checkConfig } from "../../workers/config/config-report";
import { queueNames } from "../../workers/queue/queue-names";
import { CliError, type ExitCode } from "../cli-error";
import { type Invocation, stringFlag, varsOf } from "../context";
import { deploymentVars, readText } from "./deployment-vars";
import { placeholderWarnings } from "./placeholders";
import { entryPointProblems, knownQueues, missingBindings } from "./wrangler-needs";

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
  const wrangler = readWrangler(configPath);
  const { vars, namesOnly, warnings, secretsKnown } = deploymentVars(inv, wrangler.vars);
  const report = checkConfig(vars, { secretsKnown, namesOnly });
  report.problems.push(
    ...entryPointProblems(wrangler.config, configPath),
    ...missingBindings(wrangler.config, vars),
    ...queueProblems(wrangler.consumed, vars),
  );
  report.warnings.push(...warnings, ...placeholderWarnings(wrangler.config));
  const sources = [configPath, stringFlag(inv, "secret-names"), stringFlag(inv, "env-file")];
  const subject = sources.filter((s) => s !== undefined).join(" + ");
  if (!secretsKnown && inv.flags.json !== true)
    inv.io.stderr.write(
      "note: no --secret-names or --env-file: whether each Worker secret is set is not checked\n",
    );
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

/**
 * Every problem of a plan that needs no service: shape, ops, placeholders (with `vars`), each op's
 * params, and the URL shape check on each item with every rule on.
 */
export function planProblems(plan: unknown, vars: Readonly<Record<string, string>> = {}): ConfigProblem[] {
  const parsed = planSchema.safeParse(plan);
  if (!parsed.success)
    return parsed.error.issues.map((i) => ({
      path: ["plan", ...i.path.map(String)].join("."),
      message: i.message,
    }));
  const problems: ConfigProblem[] = [];
  const ops = new Map(ADAPTERS.flatMap((a) => a.ops.map((op) => [op.name, op] as const)));
  parsed.data.lines.forEach((line, i) => {
    const at = `lines.${i}(${line.id})`;
    const op = ops.get(line.op);
    if (!op)
      problems.push({
        path: `${at}.op`,
        message: `unknown op "${line.op}".${didYouMean(line.op, ops.keys())} Known: ${[...ops.keys()].sort().join(", ")}`,
      });
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
          problems.push({ path: `${at}.params.${key}`, message: filled.problem });
          unfilled.add(key);
          return whole;
        }
        if (Object.hasOwn(SAMPLE, name)) return SAMPLE[name as keyof typeof SAMPLE];
        unfilled.add(key);
        problems.push({
          path: `${at}.params.${key}`,
          message: `unknown placeholder ${whole}; known: ${PLACEHOLDER_NAMES.map((n) => `{${n}}`).join(", ")}`,
        });
        return whole;
      });
    }
    if (!op) return;
    const checked = op.params.safeParse(params);
    if (!checked.success) {
      for (const issue of checked.error.issues.filter((i) => !unfilled.has(String(i.path[0]))))
        problems.push({
          path: [`${at}.params`, ...issue.path.map(String)].join("."),
          message: issue.message,
        });
      return;
    }
    const item = checked.data[op.itemParam];
    if (item === undefined || unfilled.has(op.itemParam)) return;
    for (const problem of itemShapeProblems(item))
      problems.push({ path: `${at}.params.${op.itemParam}`, message: `${problem.rule}: ${problem.message}` });
  });
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
