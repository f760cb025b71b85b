/**
 * The vars `config check` judges: what a deployment would have, from [vars], the Worker secrets by
 * name (`--secret-names <file|->`, as `wrangler secret list` prints them: `[{ "name": "…", "type":
 * "secret_text" }, …]`, its default JSON; a JSON array of names, or names separated by commas,
 * spaces or newlines, too) and an env file's values. By
 * name, a secret's presence is checked with no value on disk (docs/deploy.md, "Check the
 * configuration").
 */
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import type { ConfigProblem } from "../../workers/config/config-report";
import { CliError } from "../cli-error";
import { type Invocation, stringFlag } from "../context";
import { isPlaceholderSecret } from "./placeholders";

export function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new CliError(2, `cannot read the ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
}

const WANTED =
  'the JSON `npx wrangler secret list --config <your wrangler config>` prints ([{ "name": "…", "type": "secret_text" }, …], or ["NAME", …]), or names separated by commas, spaces or newlines';
/** A Worker secret's name as a binding: what a plain list holds, and nothing else. */
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function jsonNames(text: string, source: string): string[] {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    throw new CliError(2, `--secret-names ${source} is not JSON; it takes ${WANTED}`);
  }
  const names = Array.isArray(list)
    ? list.map((entry) => (typeof entry === "string" ? entry : (entry as { name?: unknown } | null)?.name))
    : [];
  if (!Array.isArray(list) || names.some((name) => typeof name !== "string" || name === ""))
    throw new CliError(2, `--secret-names ${source} is not a list of secrets; it takes ${WANTED}`);
  return names as string[];
}

/**
 * `wrangler secret list`'s JSON (what it prints by default, `[]` for a Worker with no secrets),
 * or a plain list typed or kept by hand. Empty text is refused, not read as "no secrets": it is
 * what a failed `wrangler secret list | …` sends (not logged in, no CLOUDFLARE_API_TOKEN).
 */
export function readSecretNames(source: string): string[] {
  let text: string;
  try {
    // `-`: standard input, so `wrangler secret list | sponson config check --secret-names -` works.
    text = readFileSync(source === "-" ? 0 : source, "utf8");
  } catch (err) {
    throw new CliError(
      2,
      `cannot read the secret names ${source}: ${(err as NodeJS.ErrnoException).code ?? err}`,
    );
  }
  const trimmed = text.trim();
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) return jsonNames(trimmed, source);
  const names = trimmed.split(/[\s,]+/).filter((name) => name !== "");
  if (names.length === 0)
    throw new CliError(
      2,
      `--secret-names ${source} is empty; it takes ${WANTED}. Did wrangler secret list fail? It needs \`npx wrangler login\`, or CLOUDFLARE_API_TOKEN where no browser can sign in (CI)`,
    );
  const wrong = names.find((name) => !SECRET_NAME.test(name));
  if (wrong !== undefined)
    throw new CliError(2, `--secret-names ${source}: "${wrong}" is not a secret name; it takes ${WANTED}`);
  return names;
}

/** What a secret known only by its name holds in the checked vars: set, and never judged. */
const KNOWN_BY_NAME = "(known by name)";

/**
 * The vars a deployment would have: [vars], then the secrets by name (--secret-names), then an env
 * file's values, which win. Names only where no value is at hand: listed names, and an env file's
 * placeholders (each said once, as such; the value itself is never printed).
 */
export function deploymentVars(inv: Invocation, base: Record<string, unknown>) {
  const vars: Record<string, unknown> = { ...base };
  const namesOnly = new Set<string>();
  const warnings: ConfigProblem[] = [];
  const namesSource = stringFlag(inv, "secret-names");
  if (namesSource !== undefined)
    for (const name of readSecretNames(namesSource)) {
      vars[name] = KNOWN_BY_NAME;
      namesOnly.add(name);
    }
  const envFile = stringFlag(inv, "env-file");
  if (envFile !== undefined)
    for (const [name, value] of Object.entries(parseEnv(readText(envFile, "env file")))) {
      vars[name] = value;
      if (value !== undefined && isPlaceholderSecret(value)) {
        namesOnly.add(name);
        warnings.push({
          path: name,
          message: `is a placeholder in ${envFile}: counted as set, its content not checked (--secret-names checks names without any value)`,
        });
      } else namesOnly.delete(name);
    }
  return { vars, namesOnly, warnings, secretsKnown: namesSource !== undefined || envFile !== undefined };
}
