/** `sponson adopt`'s flags and help (cli/commands-spec.ts holds every other command's). */
import { connection, json, type OptionSpec, target } from "./command-options";
import type { CommandSpec } from "./commands-spec";

export const ADOPT_SPEC: CommandSpec = {
  summary:
    "match the entries already on a list to pull requests (admin token): a table, then --apply adopts them",
  usage:
    "sponson adopt --connection <name> --op <op> --param <name=value>… --pattern <pattern>… [--env <name>] [--repository <owner/name>] [--apply] [--remove-closed] [--wait-timeout <s>] [--json]",
  options: {
    connection: {
      type: "string",
      value: "name",
      help: "the connection of the list (SPONSON_CONNECTIONS); required",
    },
    op: { type: "string", value: "op", help: "the op whose list is read, e.g. auth0.callbackUrl; required" },
    param: {
      type: "string",
      value: "name=value",
      multiple: true,
      help: "the object's params as a plan line gives them, without the item, e.g. client=abc (repeatable)",
    },
    pattern: {
      type: "string",
      value: "pattern",
      multiple: true,
      help: "an entry's shape with {pr}, {scope} or {branch}, e.g. https://pr-{pr}.preview.example.com/callback (repeatable)",
    },
    env: target.env as OptionSpec,
    repository: target.repository as OptionSpec,
    apply: {
      type: "boolean",
      help: "adopt: each matched entry of an open pull request becomes its scope's own",
    },
    "remove-closed": {
      type: "boolean",
      help: "with --apply, remove closed pull requests' entries (as their close would have); needs a GitHub token",
    },
    "wait-timeout": {
      type: "string",
      value: "s",
      help: "seconds to wait for each scope's lock and the object's (default: the service's)",
    },
    ...json,
    ...connection,
  },
  positionals: 0,
  details:
    "Reads the list, matches each entry against the patterns and asks GitHub whether its pull request is open,\n" +
    "with the token in $SPONSON_GITHUB_TOKEN, else $GITHUB_TOKEN or $GH_TOKEN (repository read access; sent for\n" +
    "this request only, never stored). Without a token, {branch} patterns and --remove-closed are refused and\n" +
    "pull requests are not checked. An entry two patterns claim, one no pattern matches, and one another scope owns\n" +
    "stay as they are. Without --apply nothing is written. Exit 1 when an entry failed.",
  examples: [
    "sponson adopt --connection auth0-main --op auth0.callbackUrl --param client=abc --pattern 'https://pr-{pr}.preview.example.com/callback'",
    "SPONSON_GITHUB_TOKEN=$(gh auth token) sponson adopt --connection auth0-main --op auth0.callbackUrl --param client=abc \\\n    --pattern 'https://pr-{pr}.preview.example.com/callback' --apply --remove-closed",
  ],
};
