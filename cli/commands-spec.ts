/** Every command's flags and help text, in one table: parsing and `--help` both read it. */

import { ADOPT_SPEC } from "./adopt-spec";
import {
  connection,
  json,
  LOCK_KEYS_HELP,
  type OptionSpec,
  plan,
  RUN_DETAILS,
  target,
  vars,
  verbose,
  wait,
} from "./command-options";

export type { OptionSpec } from "./command-options";

export type CommandName =
  | "apply"
  | "preview"
  | "destroy"
  | "rollback"
  | "ledger"
  | "locks"
  | "unlock"
  | "hold"
  | "unhold"
  | "token"
  | "config"
  | "plan"
  | "adopt";

export interface CommandSpec {
  summary: string;
  usage: string;
  options: Record<string, OptionSpec>;
  positionals: number;
  details?: string;
  examples: string[];
}

export const COMMANDS: Record<CommandName, CommandSpec> = {
  apply: {
    summary: "apply a plan to a scope",
    usage:
      "sponson apply --plan <file> [--var <name=value>]… [--allow-empty] [--env <name>] [--scope <scope>] [--repository <owner/name>] [--wait] [--wait-timeout <s>] [--json] [--verbose]",
    options: {
      ...plan,
      ...vars,
      "allow-empty": {
        type: "boolean",
        help: "apply a plan with no lines even if the scope owns entries (removes them all; see destroy)",
      },
      ...target,
      ...wait,
      ...json,
      ...verbose,
      ...connection,
    },
    positionals: 0,
    details: RUN_DETAILS,
    examples: [
      "sponson apply --plan plan.json --env preview --scope pr-12",
      "sponson apply --plan plan.json --scope pr-12 --wait-timeout 120 --json",
      "sponson apply --plan plan.json --scope pr-12 --verbose   # then where the run's time went",
      'sponson apply --plan plan.json --scope pr-12 --var url="$DEPLOY_URL"   # {vars.url} in the plan',
    ],
  },
  preview: {
    summary: "show what apply would change, without writing",
    usage:
      "sponson preview --plan <file> [--var <name=value>]… [--env <name>] [--scope <scope>] [--repository <owner/name>] [--json] [--verbose]",
    options: { ...plan, ...vars, ...target, ...json, ...verbose, ...connection },
    positionals: 0,
    details: RUN_DETAILS,
    examples: ["sponson preview --plan plan.json --scope pr-12"],
  },
  destroy: {
    summary: "remove everything the scope owns",
    usage:
      "sponson destroy [--env <name>] [--scope <scope>] [--repository <owner/name>] [--wait] [--wait-timeout <s>] [--json] [--verbose]",
    options: { ...target, ...wait, ...json, ...verbose, ...connection },
    positionals: 0,
    details: `${RUN_DETAILS} The entries come from the scope's ledger, never from a plan.`,
    examples: ["sponson destroy --env preview --scope pr-12 --wait"],
  },
  rollback: {
    summary: "remove what one run created (default: the last apply that created something)",
    usage:
      "sponson rollback [--run <id>] [--env <name>] [--scope <scope>] [--repository <owner/name>] [--wait] [--wait-timeout <s>] [--json] [--verbose]",
    options: {
      run: { type: "string", value: "id", help: "the run to undo (see `sponson ledger`)" },
      ...target,
      ...wait,
      ...json,
      ...verbose,
      ...connection,
    },
    positionals: 0,
    details: RUN_DETAILS,
    examples: ["sponson rollback --scope pr-12", "sponson rollback --scope pr-12 --run <run id>"],
  },
  ledger: {
    summary: "show a scope's receipt: what it owns, intents, last runs (without a scope: list scopes)",
    usage: "sponson ledger [--env <name>] [--scope <scope>] [--repository <owner/name>] [--json]",
    options: { ...target, ...json, ...connection },
    positionals: 0,
    examples: ["sponson ledger --scope pr-12", "sponson ledger --env preview   # every scope with a receipt"],
  },
  locks: {
    summary: "list held locks (scope and parent), or show one lock with its history",
    usage: "sponson locks [<key>] [--json]",
    options: { ...json, ...connection },
    positionals: 1,
    details: LOCK_KEYS_HELP,
    examples: [
      "sponson locks",
      "sponson locks scope:186853002/preview/pr-12",
      "sponson locks auth0:acme.us.auth0.com:client:preview-app",
    ],
  },
  unlock: {
    summary: "force-release a lock (admin token), with a reason kept in the lock's history",
    usage: 'sponson unlock <key> --reason "<text>" [--json]',
    options: {
      // No short flag: `-r` is --repository everywhere else.
      reason: {
        type: "string",
        value: "text",
        help: "why; required, kept in the lock's history",
      },
      ...json,
      ...connection,
    },
    positionals: 1,
    details: `The run that held the lock loses its lease; its next write is refused (LOCK_LOST).\n${LOCK_KEYS_HELP}`,
    examples: [
      'sponson unlock scope:186853002/preview/pr-12 --reason "runner died mid-apply"',
      'sponson unlock auth0:acme.us.auth0.com:client:preview-app --reason "stuck parent lock"',
    ],
  },
  hold: {
    summary: "hold a lock (admin token): runs that need it are refused until the hold ends or is lifted",
    usage: 'sponson hold <key> --reason "<text>" --ttl <duration> [--json]',
    options: {
      reason: { type: "string", value: "text", help: "why; required, shown to every run the hold refuses" },
      ttl: {
        type: "string",
        value: "duration",
        help: "how long: 3600, 90s, 30m, 2h or 1d (1 minute to 30 days)",
      },
      ...json,
      ...connection,
    },
    positionals: 1,
    details: `The run holding the lock now keeps its lease; the hold applies from the next grant.\n${LOCK_KEYS_HELP}`,
    examples: [
      'sponson hold auth0:acme.us.auth0.com:client:preview-app --reason "IdP migration" --ttl 2h',
      'sponson hold scope:186853002/preview/main --reason "release freeze" --ttl 1d',
    ],
  },
  unhold: {
    summary: "lift a lock's hold (admin token); the first waiting run is granted the lock",
    usage: "sponson unhold <key> [--json]",
    options: { ...json, ...connection },
    positionals: 1,
    details: LOCK_KEYS_HELP,
    examples: ["sponson unhold scope:186853002/preview/main"],
  },
  token: {
    summary: "print the token the CLI would send (SPONSON_TOKEN, or the job's GitHub OIDC token)",
    usage: "sponson token [--audience <aud>]",
    options: {
      audience: connection.audience as OptionSpec,
      url: connection.url as OptionSpec,
      help: connection.help as OptionSpec,
    },
    positionals: 0,
    details:
      "Prints to stdout only, for piping (e.g. into curl). In GitHub Actions the token is masked in the log first.",
    examples: ['curl -H "Authorization: Bearer $(sponson token)" "$SPONSON_URL/v1/locks"'],
  },
  config: {
    summary: "check the service's configuration offline: every problem at once, each with its path",
    usage:
      "sponson config check [--wrangler <wrangler.toml>] [--secret-names <file|->] [--env-file <file>] [--json]",
    options: {
      wrangler: {
        type: "string",
        value: "file",
        help: "the wrangler config to check: its [vars], bindings, migrations and rate limiters (default: wrangler.toml)",
      },
      config: { type: "string", value: "file", help: "the same as --wrangler" },
      "secret-names": {
        type: "string",
        value: "file",
        help: "the Worker secrets by name: the JSON `wrangler secret list` prints, or names separated by commas, spaces or newlines (- reads stdin); no value needed",
      },
      "env-file": {
        type: "string",
        value: "file",
        help: "KEY=value lines: the Worker secrets and any var kept out of wrangler.toml (wins over [vars])",
      },
      ...json,
      help: connection.help as OptionSpec,
    },
    positionals: 1,
    details:
      "Checks every var (JSON vars against their schemas, schemas/*.schema.json), every connection's provider\n" +
      "fields, and with --secret-names (or --env-file) that each Worker secret the configuration needs is set.\n" +
      "Prints names, never values; a placeholder value in the env file counts as set, its content unchecked.\n" +
      "Names every Durable Object binding, migration, rate limiter, bucket and queue the Worker needs (the\n" +
      "release's wrangler.toml) that the config lacks, and a main that does not resolve from its folder;\n" +
      "warns on every example value (acme, example domains and keys, <…>) left in.\n" +
      "Exit 0 when there is nothing to fix, 1 otherwise. The deployed service answers the same as GET /v1/config/status.",
    examples: [
      "npx wrangler secret list --config wrangler.production.toml | sponson config check --wrangler wrangler.production.toml --secret-names -",
      "sponson config check --env-file .env.production --json",
    ],
  },
  plan: {
    summary:
      "check a plan offline: shape, ops, placeholders, each op's params and the URL shape check, every problem at once",
    usage: "sponson plan check <plan.json> [--var <name=value>]… [--json]",
    options: { ...vars, ...json, help: connection.help as OptionSpec },
    positionals: 2,
    details:
      "The URL shape check refuses items whose wildcard covers a public suffix (https://*.vercel.app/…) and\n" +
      "http:// items other than loopback, with every rule on (an environment's opt-out is the service's).\n" +
      "A plan using {vars.<name>} needs --var <name>=<a value of the right shape>.\n" +
      "Connections and the write policy are the service's configuration: `sponson preview` checks those.\n" +
      "Exit 0 when there is nothing to fix, 1 otherwise.",
    examples: [
      "sponson plan check sponson.plan.json",
      "sponson plan check sponson.plan.json --var url=https://my-app-git-feat-x.vercel.app",
    ],
  },
  adopt: ADOPT_SPEC,
};

export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : "    "}--${name}${o.value ? ` <${o.value}>` : ""}`;
    return [flag, o.help] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, help]) => `  ${flag.padEnd(width)}  ${help}`);
}

export function commandHelp(name: CommandName): string {
  const spec = COMMANDS[name];
  const lines = [`sponson ${name}: ${spec.summary}`, "", `Usage: ${spec.usage}`];
  if (spec.details) lines.push("", spec.details);
  lines.push("", "Options:", ...optionLines(spec.options), "", "Examples:");
  lines.push(...spec.examples.map((e) => `  ${e}`), "", EXIT_CODES_HELP);
  return `${lines.join("\n")}\n`;
}

const EXIT_CODES_HELP =
  "Exit codes: 0 success; 1 run failed, lock held or service error; 2 usage or authentication error;\n" +
  "3 destroy or rollback of a scope that has no receipt (nothing done: is the scope name right?).";

export function mainHelp(version: string): string {
  const width = Math.max(...COMMAND_NAMES.map((n) => n.length));
  return `${[
    `sponson ${version}: apply, preview and destroy preview-environment entries through Sponson Edge`,
    "",
    "Usage: sponson <command> [options]",
    "",
    "Commands:",
    ...COMMAND_NAMES.map((n) => `  ${n.padEnd(width)}  ${COMMANDS[n].summary}`),
    "",
    "Environment:",
    "  SPONSON_URL          the service (outside CI default: this checkout's running npm start,",
    "                       http://127.0.0.1:$PORT when PORT is set, else http://127.0.0.1:8787)",
    "  SPONSON_TOKEN        a bearer token (service token, or any token the service accepts)",
    "  SPONSON_AUDIENCE     audience for the GitHub OIDC token (default: the URL's origin)",
    "  SPONSON_ENVIRONMENT  default environment (else preview)",
    "  In GitHub Actions without SPONSON_TOKEN, the job's OIDC token is fetched (permissions: id-token: write).",
    "",
    "Run `sponson <command> --help` for a command's options.",
    EXIT_CODES_HELP,
  ].join("\n")}\n`;
}
