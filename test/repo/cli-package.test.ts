/**
 * The CLI installs outside a checkout (docs/releasing.md, "The CLI's package"): `npm pack` of
 * packages/cli builds the bundle (prepack), the tarball installs into an empty folder with npm's
 * cache only (no network here, and none needed: the bundle has no runtime dependencies), and
 * `npx sponson --help` and `npx sponson plan check` work there with no checkout in reach.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "sponson-pack-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(command: string, args: string[], cwd: string) {
  const done = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
    // No npm_* variables of the test's own npm run: the install sees only the empty folder.
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? work, NO_COLOR: "1" },
  });
  return { code: done.status, stdout: done.stdout, stderr: done.stderr, error: done.error };
}

describe("the CLI's package", () => {
  it("packs, installs into an empty folder offline, and runs there", () => {
    const packed = run("npm", ["pack", "--json", "--pack-destination", work], join(ROOT, "packages", "cli"));
    expect(packed.code, packed.stderr).toBe(0);
    const [tarball] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
    expect(tarball.files.map((f) => f.path).sort()).toEqual([
      "LICENSE",
      "README.md",
      "bin/sponson.mjs",
      "dist/sponson.mjs",
      "package.json",
    ]);

    const app = join(work, "app");
    spawnSync("mkdir", [app]);
    writeFileSync(join(app, "package.json"), '{ "private": true }\n');
    const install = run(
      "npm",
      ["install", "--offline", "--no-audit", "--no-fund", join(work, tarball.filename)],
      app,
    );
    expect(install.code, install.stderr).toBe(0);
    // Nothing but the CLI itself was installed: its bundle needs no other package.
    expect(readdirSync(join(app, "node_modules")).filter((n) => !n.startsWith("."))).toEqual([
      "sponson-edge-cli",
    ]);

    const help = run("npx", ["--offline", "sponson", "--help"], app);
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining("Usage: sponson <command>")]);
    expect(help.stdout).toContain("sponson 0.");

    copyFileSync(join(ROOT, "examples", "plan.json"), join(app, "plan.json"));
    const check = run("npx", ["--offline", "sponson", "plan", "check", "plan.json"], app);
    expect([check.code, check.stdout]).toEqual([
      0,
      expect.stringContaining("plan.json (3 lines): no problems"),
    ]);
    writeFileSync(join(app, "bad.json"), '{ "version": 2, "lines": [{ "id": "a", "op": "auth0.nope" }] }');
    const bad = run("npx", ["--offline", "sponson", "plan", "check", "bad.json"], app);
    expect(bad.code).toBe(1);
  }, 240_000);
});
