/** The flags several commands share, and the help text they share (cli/commands-spec.ts). */
import { MAX_WAIT_TIMEOUT_SECONDS } from "../shared/schemas/requests";

export type OptionSpec = {
  type: "string" | "boolean";
  short?: string;
  value?: string;
  help: string;
  /** Repeatable: every occurrence is kept, in order. */
  multiple?: boolean;
};
export const connection: Record<string, OptionSpec> = {
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
export const target: Record<string, OptionSpec> = {
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
export const json: Record<string, OptionSpec> = {
  json: { type: "boolean", help: "print the final result as JSON on stdout (progress goes to stderr)" },
};
export const verbose: Record<string, OptionSpec> = {
  verbose: {
    type: "boolean",
    help: "after the run, print where its time went (timings) and how many calls it made (counts)",
  },
};
export const plan: Record<string, OptionSpec> = {
  plan: { type: "string", short: "p", value: "file", help: "the plan (JSON); required" },
};
export const vars: Record<string, OptionSpec> = {
  var: {
    type: "string",
    value: "name=value",
    multiple: true,
    help: "a value for {vars.<name>} in the plan's item params, e.g. the URL the deploy step printed (repeatable)",
  },
};
export const wait: Record<string, OptionSpec> = {
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
export const LOCK_KEYS_HELP = [
  "Lock keys:",
  "  scope:<repository id>/<environment>/<scope>   a scope's lock, e.g. scope:186853002/preview/pr-12",
  "  _locks/<32 hex>                               a provider object's lock (hash of its identity)",
  "  auth0:<tenant>:client:<client id>             the object's identity itself: the service finds its lock",
].join("\n");

export const RUN_DETAILS =
  "Streams one line per plan line as it happens. Writes a Markdown table to $GITHUB_STEP_SUMMARY when set.\n" +
  "Retries what the service marks retriable (not LOCK_HELD: --wait waits for the lock), with growing, jittered\n" +
  "pauses, for up to --wait-timeout seconds, else $SPONSON_RETRY_SECONDS, else 60 (0: no retries).";
