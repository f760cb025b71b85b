/**
 * The Action's inputs (action.yml), read and checked in one place before anything is sent: booleans
 * with `core.getBooleanInput` (YAML 1.2: `true`/`True`/`TRUE`, `false`/`False`/`FALSE`; anything
 * else fails naming the input), the service URL (`https://`, `http://` on loopback only), `vars:`
 * lines with the service's name rule. Defaults are action.yml's, repeated here for a runner that
 * leaves an input unset.
 */
import * as core from "@actions/core";
import { serviceUrlProblem } from "../cli/service-url";
import { parseVars } from "./vars";

const COMMANDS = ["apply", "preview", "destroy", "rollback"] as const;
type Command = (typeof COMMANDS)[number];

export interface ActionInputs {
  url: string;
  plan: string;
  environment: string;
  scope: string;
  wait: boolean;
  waitTimeout: string;
  audience: string;
  command: Command;
  token: string;
  comment: boolean;
  githubToken: string;
  vars: Record<string, string>;
}

/** An unset boolean takes its default; a set one must be a YAML 1.2 boolean. */
function booleanInput(name: string, fallback: boolean): boolean {
  return core.getInput(name) === "" ? fallback : core.getBooleanInput(name);
}

export function actionInputs(): ActionInputs {
  const command = core.getInput("command") || "apply";
  if (!(COMMANDS as readonly string[]).includes(command))
    throw new Error(`command must be ${COMMANDS.join(", ")}; got "${command}"`);
  const url = core.getInput("url", { required: true });
  const urlProblem = serviceUrlProblem(url);
  if (urlProblem) throw new Error(`url: ${urlProblem}`);
  const vars = parseVars(core.getInput("vars"));
  if (!vars.ok) throw new Error(`vars ${vars.problem}`);
  return {
    url,
    plan: core.getInput("plan") || "sponson.plan.json",
    environment: core.getInput("environment") || "preview",
    scope: core.getInput("scope"),
    wait: booleanInput("wait", false),
    waitTimeout: core.getInput("wait-timeout"),
    audience: core.getInput("audience"),
    command: command as Command,
    token: core.getInput("token"),
    comment: booleanInput("comment", true),
    githubToken: core.getInput("github-token"),
    vars: vars.vars,
  };
}

/** The CLI command the Action runs in-process. Vars go to the runs that resolve a plan. */
export function cliArgs(i: ActionInputs): string[] {
  const args: string[] = [i.command, "--env", i.environment, "--url", i.url, "--json"];
  if (i.command === "apply" || i.command === "preview") {
    args.push("--plan", i.plan);
    for (const [name, value] of Object.entries(i.vars)) args.push("--var", `${name}=${value}`);
  }
  if (i.scope) args.push("--scope", i.scope);
  if (i.command !== "preview") {
    if (i.waitTimeout) args.push("--wait-timeout", i.waitTimeout);
    else if (i.wait) args.push("--wait");
  }
  return args;
}
