/**
 * `config check` (and what `plan check`, ./plan-check.ts, shares with it): offline checks that
 * print every problem at once, each with its path, and exit 0 (nothing to fix) or 1. Nothing is
 * sent anywhere.
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
import { type ConfigProblem, checkConfig } from "../../workers/config/config-report";
import { queueNames } from "../../workers/queue/queue-names";
import { CliError, type ExitCode } from "../cli-error";
import { type Invocation, stringFlag } from "../context";
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

export function subcommand(inv: Invocation): void {
  const given = inv.positionals[0];
  if (given !== "check")
    throw new CliError(
      2,
      `${given === undefined ? "" : `unknown subcommand "${given}".${didYouMean(given, ["check"])} `}usage: sponson ${inv.command} check …  (run \`sponson ${inv.command} --help\`)`,
    );
}

export function printProblems(
  inv: Invocation,
  subject: string,
  problems: ConfigProblem[],
  extra: object,
): ExitCode {
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
    for (const { name, budget } of report.connections)
      if (budget)
        inv.io.stderr.write(
          `note: connection ${name}: provider budget ${budget.burst} at once, ${budget.perSecond}/s, counting ${budget.counts} (${budget.from}; SPONSON_CONNECTIONS.${name}.budget)\n`,
        );
  for (const p of report.platforms)
    inv.io.stderr.write(
      `note: ${p.platform} ${p.target} (${p.name}) registers ${p.repository}'s previews in ${p.environment}\n`,
    );
  if (inv.flags.json !== true)
    for (const { path, message } of report.warnings) inv.io.stderr.write(`warning: ${path}: ${message}\n`);
  return printProblems(inv, subject, report.problems, {
    warnings: report.warnings,
    vars: report.vars,
    connections: report.connections,
    platforms: report.platforms,
    urlCheckOptOuts: report.urlCheckOptOuts,
  });
}
