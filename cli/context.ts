/**
 * From argv and the environment to what a command needs: its parsed flags, the service URL, the
 * target environment and scope (defaulting from the GitHub Actions job), and a client with the
 * caller's token.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { localInstance } from "../scripts/start-state.mjs";
import { nearest } from "../shared/did-you-mean";
import { MAX_VARS, SHA_PATTERN, VAR_NAME } from "../shared/placeholders";
import { repositoryNamePattern } from "../shared/schemas/repository";
import { MAX_WAIT_TIMEOUT_SECONDS, scopePathSchema } from "../shared/schemas/requests";
import { CliError } from "./cli-error";
import { SponsonClient } from "./client";
import { COMMANDS, type CommandName } from "./commands-spec";
import { audienceFor, type Credentials, type Env, inGithubActions, resolveCredentials } from "./credentials";
import { serviceUrlProblem } from "./service-url";

export interface Io {
  env: Env;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  version: string;
}

export type Flags = Record<string, string | string[] | boolean | undefined>;

export interface Invocation {
  command: CommandName;
  flags: Flags;
  positionals: string[];
  io: Io;
}

export function parseCommand(command: CommandName, argv: string[], io: Io): Invocation {
  const spec = COMMANDS[command];
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([name, o]) => [
      name,
      {
        type: o.type,
        ...(o.short ? { short: o.short } : {}),
        ...(o.multiple ? { multiple: true } : {}),
      },
    ]),
  );
  let parsed: { values: Flags; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (err) {
    throw new CliError(
      2,
      `${(err as Error).message}${flagHint(err, spec.options)}\nRun \`sponson ${command} --help\` for usage.`,
    );
  }
  if (!parsed.values.help && parsed.positionals.length > spec.positionals) {
    throw new CliError(
      2,
      `unexpected argument "${parsed.positionals[spec.positionals]}"\nUsage: ${spec.usage}`,
    );
  }
  return { command, flags: parsed.values, positionals: parsed.positionals, io };
}

/** " Did you mean --scope?" for a mistyped flag (node:util's parseArgs names it in its message). */
function flagHint(err: unknown, options: Record<string, { short?: string }>): string {
  if ((err as { code?: string }).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return "";
  const given = /'(-{1,2}[^']+)'/.exec((err as Error).message)?.[1];
  if (given === undefined) return "";
  const name = nearest(given.replace(/^-+/, "").split("=")[0] ?? "", Object.keys(options));
  return name === undefined ? "" : ` Did you mean --${name}?`;
}

export function stringFlag(inv: Invocation, name: string): string | undefined {
  const v = inv.flags[name];
  return typeof v === "string" ? v : undefined;
}

/**
 * `--var name=value`, repeatable: the request's `vars` for `{vars.<name>}` in item params. The
 * value is everything after the first `=`; a name given twice is a mistake, not a last-wins.
 */
export function varsOf(inv: Invocation): Record<string, string> {
  const given = inv.flags.var;
  const raws = Array.isArray(given) ? given : typeof given === "string" ? [given] : [];
  const vars: Record<string, string> = {};
  for (const raw of raws) {
    const eq = raw.indexOf("=");
    const name = eq === -1 ? raw : raw.slice(0, eq);
    const value = eq === -1 ? "" : raw.slice(eq + 1);
    if (eq === -1 || !VAR_NAME.test(name) || value === "")
      throw new CliError(
        2,
        `--var "${raw}": expected name=value, the name a lowercase letter then up to 31 of a-z 0-9 _, the value not empty`,
      );
    if (Object.hasOwn(vars, name)) throw new CliError(2, `--var ${name} is given twice`);
    vars[name] = value;
  }
  if (Object.keys(vars).length > MAX_VARS) throw new CliError(2, `at most ${MAX_VARS} --var flags`);
  return vars;
}

export function serviceUrl(inv: Invocation): string {
  const url = stringFlag(inv, "url") ?? inv.io.env.SPONSON_URL;
  if (!url) {
    // Outside CI the local instance (README, "Try it") is the sensible default, found as `npm run
    // webhook` finds it (scripts/start-state.mjs); in CI a silent default hides a missing setting.
    if (inGithubActions(inv.io.env) || inv.io.env.CI === "true")
      throw new CliError(2, "SPONSON_URL is not set");
    return localInstance(inv.io.env).url;
  }
  // https://, or http:// on loopback only: a token never crosses a network in clear.
  const problem = serviceUrlProblem(url);
  if (problem) throw new CliError(2, problem);
  return url;
}

export function credentials(inv: Invocation): Promise<Credentials> {
  const url = stringFlag(inv, "url") ?? inv.io.env.SPONSON_URL;
  return resolveCredentials(
    inv.io.env,
    () => audienceFor(inv.io.env, url, stringFlag(inv, "audience")),
    (line) => inv.io.stderr.write(`${line}\n`),
  );
}

export async function clientFor(inv: Invocation): Promise<SponsonClient> {
  const url = serviceUrl(inv);
  const { token } = await credentials(inv);
  const repository = repositoryOf(inv);
  return new SponsonClient({
    url,
    token,
    userAgent: `sponson-cli/${inv.io.version}`,
    ...(repository === undefined ? {} : { repository }),
  });
}

/**
 * --repository, else $SPONSON_REPOSITORY, else in GitHub Actions the job's own repository; unset,
 * the service uses the token's repository or the only one it serves.
 */
export function repositoryOf(inv: Invocation): string | undefined {
  const { env } = inv.io;
  const repository =
    stringFlag(inv, "repository") ??
    (env.SPONSON_REPOSITORY || undefined) ??
    (env.GITHUB_ACTIONS === "true" ? env.GITHUB_REPOSITORY || undefined : undefined);
  if (repository !== undefined && !repositoryNamePattern.test(repository)) {
    throw new CliError(2, `--repository "${repository}" must be owner/name, e.g. acme/web`);
  }
  return repository;
}

export function environmentOf(inv: Invocation): string {
  const environment = stringFlag(inv, "env") ?? inv.io.env.SPONSON_ENVIRONMENT ?? "preview";
  if (!scopePathSchema.shape.environment.safeParse(environment).success) {
    throw new CliError(2, `--env "${environment}" is not an environment name (lowercase letters, digits, -)`);
  }
  return environment;
}

/** --scope, else in GitHub Actions the pull request's number or the pushed branch. */
export function scopeOf(inv: Invocation, required = true): string | undefined {
  const scope = stringFlag(inv, "scope") ?? scopeFromGithub(inv.io.env);
  if (scope === undefined) {
    if (!required) return undefined;
    throw new CliError(2, "--scope is required (pr-<n>, branch-<name> or main) outside a GitHub Actions job");
  }
  if (!scopePathSchema.shape.scope.safeParse(scope).success) {
    throw new CliError(2, `--scope "${scope}" must be pr-<n>, branch-<name> or main`);
  }
  return scope;
}

/** The fields of the job's event payload ($GITHUB_EVENT_PATH) the CLI reads; {} when there is none. */
function githubEvent(env: Env): {
  pull_request?: { number?: unknown; head?: { sha?: unknown } };
  repository?: { default_branch?: unknown };
} {
  if (!env.GITHUB_EVENT_PATH) return {};
  try {
    const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) as unknown;
    return typeof event === "object" && event !== null ? (event as ReturnType<typeof githubEvent>) : {};
  } catch {
    return {};
  }
}

export function scopeFromGithub(env: Env): string | undefined {
  const event = githubEvent(env);
  // pull_request_target runs on the base branch's ref: the number is only in the event payload.
  if (env.GITHUB_EVENT_NAME?.startsWith("pull_request") && typeof event.pull_request?.number === "number") {
    return `pr-${event.pull_request.number}`;
  }
  const ref = env.GITHUB_REF ?? "";
  const pr = /^refs\/pull\/(\d+)\//.exec(ref);
  if (pr) return `pr-${pr[1]}`;
  const branch = /^refs\/heads\/(.+)$/.exec(ref)?.[1] ?? (env.GITHUB_HEAD_REF || undefined);
  if (branch === undefined) return undefined;
  // The repository's default branch is scope `main`, whatever it is called (master, trunk…).
  const defaultBranch =
    typeof event.repository?.default_branch === "string" ? event.repository.default_branch : "main";
  return branch === defaultBranch ? "main" : `branch-${branch}`;
}

/**
 * The commit the run is for (`{sha}` in plans): $SPONSON_SHA, else in GitHub Actions the pull
 * request's head commit (GITHUB_SHA is the test-merge commit there), else $GITHUB_SHA.
 */
export function shaOf(env: Env): string | undefined {
  const head = githubEvent(env).pull_request?.head?.sha;
  const sha = env.SPONSON_SHA || (typeof head === "string" ? head : undefined) || env.GITHUB_SHA || undefined;
  if (sha === undefined) return undefined;
  if (!SHA_PATTERN.test(sha)) throw new CliError(2, `the commit "${sha}" is not a full lowercase commit id`);
  return sha;
}

export function waitOptions(inv: Invocation): { wait?: boolean; waitTimeoutSeconds?: number } {
  const raw = stringFlag(inv, "wait-timeout");
  if (raw === undefined) return inv.flags.wait ? { wait: true } : {};
  const seconds = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(seconds) || seconds > MAX_WAIT_TIMEOUT_SECONDS) {
    throw new CliError(
      2,
      `--wait-timeout must be whole seconds from 0 to ${MAX_WAIT_TIMEOUT_SECONDS}, not "${raw}"`,
    );
  }
  return { wait: true, waitTimeoutSeconds: seconds };
}
