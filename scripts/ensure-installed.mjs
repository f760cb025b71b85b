// `npm start` and `npm test` on a fresh clone (their pre-scripts): runs `npm ci` when node_modules
// is missing or was installed from another package-lock.json, so the README's two commands are the
// whole set-up, and says npm's engine warnings about the machine's Node in one line when the
// project's own Node satisfies them (engine-warnings.mjs). Node's own modules only: it runs before
// anything is installed, under any Node.
// After `npm ci` (CI, .ci/run) node_modules matches the lock file and nothing is installed again.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { engineWarningFilter, pinnedNode } from "./engine-warnings.mjs";

const USAGE = `Usage: npm run prestart   (also npm run pretest; npm start and npm test run them first)

Installs the dependencies with \`npm ci\` when node_modules is missing or does not match
package-lock.json (a package missing or at another version); otherwise does nothing.
Takes no options.
`;

/**
 * Why node_modules needs installing in `dir`, or null. npm records what it installed in
 * node_modules/.package-lock.json; newer than the lock file means current (the usual case, no
 * reading), else each locked package is compared by version, so a checkout that only touched the
 * lock file's time installs nothing.
 */
export function installReason(dir) {
  const lockPath = join(dir, "package-lock.json");
  const installedPath = join(dir, "node_modules", ".package-lock.json");
  if (!existsSync(join(dir, "node_modules"))) return "node_modules is missing";
  if (!existsSync(installedPath)) return "node_modules was not installed by npm";
  if (statSync(installedPath).mtimeMs >= statSync(lockPath).mtimeMs) return null;
  const locked = JSON.parse(readFileSync(lockPath, "utf8")).packages ?? {};
  const installed = JSON.parse(readFileSync(installedPath, "utf8")).packages ?? {};
  for (const [path, entry] of Object.entries(locked)) {
    // The root is not in node_modules; optional packages (other platforms' binaries) may be absent.
    if (path === "" || entry.optional || entry.link) continue;
    if (installed[path]?.version !== entry.version)
      return `${path.replace(/^.*node_modules\//, "")} ${entry.version} is not installed`;
  }
  return null;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--help") || process.argv.includes("-h")) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const reason = installReason(process.cwd());
  if (reason !== null) {
    process.stderr.write(`setup: ${reason}: running npm ci (once; the README's commands do the rest)\n`);
    // npm's stderr goes through the engine-warning filter (engine-warnings.mjs); stdout as it is.
    const npm = spawn("npm", ["ci", "--no-audit", "--no-fund"], { stdio: ["inherit", "inherit", "pipe"] });
    const filter = engineWarningFilter(pinnedNode(process.cwd()));
    const print = (lines) => {
      for (const line of lines) process.stderr.write(`${line}\n`);
    };
    for await (const line of createInterface({ input: npm.stderr })) print(filter.push(line));
    const code = npm.exitCode ?? (await new Promise((done) => npm.on("close", (c) => done(c))));
    print(filter.end());
    process.exit(code ?? 1);
  }
}
