/**
 * `adopt`: the entries already on one list, matched to pull requests' scopes (docs/cli.md,
 * "adopt"; POST /v1/adopt). A dry run unless --apply. The GitHub token comes from the environment
 * ($SPONSON_GITHUB_TOKEN, $GITHUB_TOKEN or $GH_TOKEN), never a flag: flags end up in shell history
 * and process listings. It is sent to the service for this request only.
 */

import { adoptionText } from "../adoption-text";
import { CliError, type ExitCode } from "../cli-error";
import { clientFor, environmentOf, type Invocation, stringFlag } from "../context";

const TOKEN_VARIABLES = ["SPONSON_GITHUB_TOKEN", "GITHUB_TOKEN", "GH_TOKEN"] as const;

function listFlag(inv: Invocation, name: string): string[] {
  const v = inv.flags[name];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

/** `--param name=value`, repeatable: the object's params (e.g. client=abc), as a plan line gives them. */
function paramsOf(inv: Invocation): Record<string, string> {
  const params: Record<string, string> = {};
  for (const raw of listFlag(inv, "param")) {
    const eq = raw.indexOf("=");
    if (eq <= 0) throw new CliError(2, `--param "${raw}": expected name=value`);
    const name = raw.slice(0, eq);
    if (Object.hasOwn(params, name)) throw new CliError(2, `--param ${name} is given twice`);
    params[name] = raw.slice(eq + 1);
  }
  return params;
}

export async function adoptCommand(inv: Invocation): Promise<ExitCode> {
  const connection = stringFlag(inv, "connection");
  const op = stringFlag(inv, "op");
  const patterns = listFlag(inv, "pattern");
  if (!connection || !op)
    throw new CliError(
      2,
      "--connection and --op are required: which list to read (see `sponson adopt --help`)",
    );
  if (patterns.length === 0)
    throw new CliError(2, "--pattern is required, e.g. --pattern 'https://pr-{pr}.preview.example.com'");
  const removeClosed = inv.flags["remove-closed"] === true;
  const token = TOKEN_VARIABLES.map((name) => inv.io.env[name]).find((v) => v);
  if (removeClosed && !token)
    throw new CliError(
      2,
      "--remove-closed needs a GitHub token in $SPONSON_GITHUB_TOKEN (or $GITHUB_TOKEN, $GH_TOKEN)",
    );
  const wait = stringFlag(inv, "wait-timeout");
  if (wait !== undefined && !/^\d+$/.test(wait))
    throw new CliError(2, `--wait-timeout must be whole seconds, not "${wait}"`);
  const client = await clientFor(inv);
  const result = await client.adopt({
    environment: environmentOf(inv),
    connection,
    op,
    params: paramsOf(inv),
    patterns,
    apply: inv.flags.apply === true,
    removeClosed,
    ...(token ? { github: { token } } : {}),
    ...(wait !== undefined ? { waitTimeoutSeconds: Number(wait) } : {}),
  });
  const text = inv.flags.json === true ? JSON.stringify(result, null, 2) : adoptionText(result).join("\n");
  inv.io.stdout.write(`${text}\n`);
  return result.counts.failed > 0 ? 1 : 0;
}
