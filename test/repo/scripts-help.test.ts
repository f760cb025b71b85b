/**
 * Every npm script that runs a file of ours answers `--help` with its usage, exits 0 and does
 * nothing else: no service started, no key written, no bundle built. Scripts that run a tool
 * (tsc, biome, vitest) get its own --help.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const scripts = (
  JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;

/** `node <file> [args]`: one of our files; anything else must be a tool or another npm script. */
const OUR_FILE = /^node (\S+\.m?js)((?: [^&|;]+)?)$/;
const TOOL = /^(tsc|biome|vitest|npm run) /;

const steps = Object.entries(scripts).flatMap(([name, command]) =>
  command.split("&&").map((step) => ({ name, step: step.trim() })),
);
const ours = steps.flatMap(({ name, step }) => {
  const m = OUR_FILE.exec(step);
  return m?.[1] ? [{ name, file: m[1], args: (m[2] ?? "").trim().split(" ").filter(Boolean) }] : [];
});

// Run from an empty directory: a script that wrote anything relative to its cwd (e.g. .dev.vars)
// would leave it here.
const cwd = mkdtempSync(join(tmpdir(), "sponson-help-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("npm scripts answer --help", () => {
  it("every step of every script is a file of ours or a tool; the files exist", () => {
    for (const { name, step } of steps)
      expect(OUR_FILE.test(step) || TOOL.test(step), `${name}: ${step}`).toBe(true);
    expect(ours.map((o) => o.name).sort()).toEqual([
      "bench",
      "build:action",
      "build:cli",
      "build:schemas",
      "docs:config",
      "keygen",
      "platform-event",
      "prepare",
      "prestart",
      "pretest",
      "start",
      "test",
      "token",
      "typecheck",
      "webhook",
    ]);
    for (const { file } of ours) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });

  it.for(ours.map((o) => [o.name, o] as const))("npm run %s -- --help", ([name, { file, args }]) => {
    const bundle = join(ROOT, "dist", "sponson.mjs");
    const builtAt = existsSync(bundle) ? statSync(bundle).mtimeMs : null;
    const run = spawnSync(process.execPath, [join(ROOT, file), ...args, "--help"], {
      cwd,
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(run.error).toBeUndefined();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/^Usage: npm /);
    // It names how it is invoked: `npm start` or `npm run <name>` (prepare is build:cli's alias).
    expect(run.stdout).toContain(
      name === "start" ? "npm start" : `npm run ${name === "prepare" ? "build:cli" : name}`,
    );
    expect(readdirSync(cwd)).toEqual([]);
    expect(existsSync(bundle) ? statSync(bundle).mtimeMs : null).toBe(builtAt);
  });
});
