/**
 * The Action runs the committed dist/action.js on Node 24 and installs nothing: the file is what
 * `npm run build:action` makes from today's sources and lock file, it is tracked by git, and it
 * imports nothing but Node's own modules.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ACTION_BUNDLE, actionBundle } from "../../scripts/build-action.mjs";

const ROOT = join(import.meta.dirname, "..", "..");

describe("the Action's bundle", () => {
  it("action.yml runs dist/action.js on node24, with no step that installs or sets up a tool", () => {
    const yml = readFileSync(join(ROOT, "action.yml"), "utf8");
    expect(yml).toMatch(/^runs:\n {2}using: node24\n {2}main: dist\/action\.js\n$/m);
    expect(yml).not.toMatch(/setup-node|npm ci|steps:/);
  });

  it("the committed bundle is exactly what the sources build (run `npm run build:action`)", async () => {
    const built = await actionBundle();
    const committed = readFileSync(ACTION_BUNDLE, "utf8");
    expect(committed.length).toBe(built.length);
    expect(committed === built).toBe(true);
  }, 60_000);

  it("is tracked by git, while the CLI's own bundle is not", () => {
    const tracked = execFileSync("git", ["ls-files", "dist"], { cwd: ROOT, encoding: "utf8" })
      .trim()
      .split("\n");
    expect(tracked).toEqual(["dist/action.js"]);
  });

  it("imports only Node's own modules", () => {
    const text = readFileSync(ACTION_BUNDLE, "utf8");
    const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\()["']([^"']+)["']/g)]
      .map((m) => m[1] as string)
      // Text that merely reads like an import ("Failed to parse URL from " + …) is not a module name.
      .filter((s) => /^[@a-z][\w@./:-]*$/.test(s));
    expect(specifiers).toContain("node:module");
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    expect(specifiers.filter((s) => !builtins.has(s))).toEqual([]);
  });
});
