/** Every command's flags and help text, in one table: parsing and `--help` both read it. */
import { MAX_WAIT_TIMEOUT_SECONDS } from "../shared/schemas/requests";

export type OptionSpec = {
  type: "string" | "boolean";
  short?: string;
  value?: string;
  help: string;
  /** Repeatable: every occurrence is kept, in order. */
  multiple?: boolean;
};
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
  | "plan";

export interface CommandSpec {
  summary: string;
  usage: string;
  options: Record<string, OptionSpec>;
  positionals: number;
  details?: string;
  examples: string[];
}

const connection: Record<string, OptionSpec> = {
  url: {
    type: "string",
    value: "url",
    help: "service URL (default: $SPONSON_URL, else http://127.0.0.1:8787)",
  },
  audience: {
    type: "string",
    value: "aud",
    help: "audience of the GitHub OIDC token (default: $SPONSON_AUDIENCE, else the URL's origin)",
  },
  help: { type: "boolean", short: "h", help: "show this help" },
};
const target: Record<string, OptionSpec> = {
  env: {
    type: "string",
    short: "e",
    value: "name",
    help: "environment (default: $SPONSON_ENVIRONMENT, else preview)",
  },
  scope: {
    type: "string",
    short: "s",
    value: "scope",
    help: "pr-<n>, branch-<name> or main (default in GitHub Actions: from the pull request or GITHUB_REF)",
  },
  repository: {
    type: "string",
    short: "r",
    value: "owner/name",
    help: "repository the scope belongs to (default: $SPONSON_REPOSITORY, in GitHub Actions $GITHUB_REPOSITORY; needed only when the service serves several)",
  },
};
const json: Record<string, OptionSpec> = {
  json: { type: "boolean", help: "print the final result as JSON on stdout (progress goes to stderr)" },
};
const verbose: Record<string, OptionSpec> = {
  verbose: {
    type: "boolean",
    help: "after the run, print where its time went (timings) and how many calls it made (counts)",
  },
};
const plan: Record<string, OptionSpec> = {
  plan: { type: "string", short: "p", value: "file", help: "the plan (JSON); required" },
};
const vars: Record<string, OptionSpec> = {
  var: {
    type: "string",
    value: "name=value",
    multiple: true,
    help: "a value for {vars.<name>} in the plan's item params, e.g. the URL the deploy step printed (repeatable)",
  },
};
const wait: Record<string, OptionSpec> = {
  wait: {
    type: "boolean",
    help: "if the scope is locked by another run, wait for it instead of failing (a `waiting for …` line every 15 s)",
  },
  "wait-timeout": {
    type: "string",
    value: "s",
    help: `seconds to wait for the lock (implies --wait; at most ${MAX_WAIT_TIMEOUT_SECONDS})`,
  },
};

/** shared/lock-keys.ts: the two kinds of lock key, as `sponson locks` lists them. */
const LOCK_KEYS_HELP = [
  "Lock keys:",
  "  scope:<repository id>/<environment>/<scope>   a scope's lock, e.g. scope:186853002/preview/pr-12",
  "  _locks/<32 hex>                               a provider object's lock (hash of its identity)",
].join("\n");

const RUN_DETAILS =
  "Streams one line per plan line as it happens. Writes a Markdown table to $GITHUB_STEP_SUMMARY when set.\n" +
  "Retries what the service marks retriable (not LOCK_HELD: --wait waits for the lock), with growing, jittered\n" +
  "pauses, for up to --wait-timeout seconds, else $SPONSON_RETRY_SECONDS, else 60 (0: no retries).";

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
    examples: ["sponson locks", "sponson locks scope:186853002/preview/pr-12"],
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
      'sponson unlock _locks/0123456789abcdef0123456789abcdef --reason "stuck parent lock"',
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
      'sponson hold _locks/0123456789abcdef0123456789abcdef --reason "IdP migration" --ttl 2h',
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
    usage: "sponson config check [--wrangler <wrangler.toml>] [--env-file <file>] [--json]",
    options: {
      wrangler: {
        type: "string",
        value: "file",
        help: "the wrangler config to check: its [vars], bindings, migrations and rate limiters (default: wrangler.toml)",
      },
      config: { type: "string", value: "file", help: "the same as --wrangler" },
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
      "fields, and with --env-file that each Worker secret a connection names is set. Prints names, never values.\n" +
      "Names every Durable Object binding, migration, rate limiter, bucket and queue the Worker needs (the\n" +
      "release's wrangler.toml) that the config lacks.\n" +
      "Exit 0 when there is nothing to fix, 1 otherwise. The deployed service answers the same as GET /v1/config/status.",
    examples: [
      "sponson config check --wrangler examples/production/wrangler.toml",
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
    "  SPONSON_URL          the service (default http://127.0.0.1:8787 outside GitHub Actions)",
    "  SPONSON_TOKEN        a bearer token (service token, or any token the service accepts)",
    "  SPONSON_AUDIENCE     audience for the GitHub OIDC token (default: the URL's origin)",
    "  SPONSON_ENVIRONMENT  default environment (else preview)",
    "  In GitHub Actions without SPONSON_TOKEN, the job's OIDC token is fetched (permissions: id-token: write).",
    "",
    "Run `sponson <command> --help` for a command's options.",
    EXIT_CODES_HELP,
  ].join("\n")}\n`;
}
