// What `npm start` hands `wrangler dev` besides its flags: the demo secrets, connections and
// webhook vars in an env file (`--env-file`), never on the command line, where `ps` shows them to
// every user of the machine; and a state file telling `npm run webhook` and the CLI (and anyone
// else) where the instance listens (./start-state.mjs).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { DEV_VARS } from "./dev-vars.mjs";
import { removeStartState, START_DIR } from "./start-state.mjs";

export { START_STATE, writeStartState } from "./start-state.mjs";
export const START_ENV = join(START_DIR, "start.env");

/**
 * One dotenv line wrangler reads back as `value`: its loader expands `$NAME` (an escaped `\$`
 * stays a `$`), and takes a single-, double- or backtick-quoted value literally up to the quote.
 */
function line(name, value) {
  const escaped = value.replaceAll("$", "\\$");
  const quote = ["'", "`", '"'].find((q) => !escaped.includes(q));
  if (quote === undefined) throw new Error(`${name}: a value with all three quote characters`);
  return `${name}=${quote}${escaped}${quote}`;
}

/**
 * Writes the env file (owner-only) with `vars`, then what .dev.vars sets (it wins, as it did over
 * `--var`), and returns wrangler's flags for it. With `--env-file` wrangler reads no .dev.vars of
 * its own, so .dev.vars is copied in.
 */
export function writeStartEnv(vars) {
  const devVars = existsSync(DEV_VARS) ? parseEnv(readFileSync(DEV_VARS, "utf8")) : {};
  const merged = { ...vars, ...devVars };
  mkdirSync(START_DIR, { recursive: true });
  const text = Object.entries(merged)
    .map(([name, value]) => line(name, String(value)))
    .join("\n");
  // Created fresh, owner-only: `mode` applies only when a file is created, so one a crashed start
  // left behind is removed first rather than rewritten with whatever mode it had.
  rmSync(START_ENV, { force: true });
  writeFileSync(START_ENV, `${text}\n`, { mode: 0o600, flag: "wx" });
  return ["--env-file", START_ENV];
}

export function removeStartFiles() {
  rmSync(START_ENV, { force: true });
  removeStartState();
}
