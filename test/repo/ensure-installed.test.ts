/**
 * `npm start` and `npm test` install what is missing on a fresh clone (their pre-scripts run
 * scripts/ensure-installed.mjs), and only then: after `npm ci` (CI) they install nothing again.
 * Run in a folder of its own with a stand-in `npm` on PATH that records what it was asked.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SCRIPT = join(ROOT, "scripts", "ensure-installed.mjs");
const scripts = (
  JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;
const work = mkdtempSync(join(tmpdir(), "sponson-setup-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// The stand-in npm: appends its arguments to calls.log and succeeds.
const bin = join(work, "bin");
mkdirSync(bin);
writeFileSync(join(bin, "npm"), `#!/bin/sh\necho "$@" >> "${join(work, "calls.log")}"\n`);
chmodSync(join(bin, "npm"), 0o755);

const LOCK = {
  name: "app",
  lockfileVersion: 3,
  packages: {
    "": { name: "app" },
    "node_modules/hono": { version: "4.13.19" },
    "node_modules/@esbuild/win32-x64": { version: "0.28.2", optional: true },
  },
};

let n = 0;
function clone(installed: object | null, { lockNewer = false } = {}): string {
  const dir = join(work, `clone-${n++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "package-lock.json"), JSON.stringify(LOCK));
  if (installed !== null) {
    mkdirSync(join(dir, "node_modules"));
    const hidden = join(dir, "node_modules", ".package-lock.json");
    writeFileSync(hidden, JSON.stringify({ name: "app", lockfileVersion: 3, packages: installed }));
    const [older, newer] = [new Date(2026, 0, 1), new Date(2026, 0, 2)];
    utimesSync(hidden, lockNewer ? older : newer, lockNewer ? older : newer);
    utimesSync(join(dir, "package-lock.json"), lockNewer ? newer : older, lockNewer ? newer : older);
  }
  return dir;
}

function setup(dir: string) {
  rmSync(join(work, "calls.log"), { force: true });
  const run = spawnSync(process.execPath, [SCRIPT], {
    cwd: dir,
    encoding: "utf8",
    env: { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: work },
  });
  const calls = existsSync(join(work, "calls.log"))
    ? readFileSync(join(work, "calls.log"), "utf8").trim()
    : "";
  return { code: run.status, stderr: run.stderr, calls };
}

describe("npm start and npm test on a fresh clone", () => {
  it("both scripts run the check first", () => {
    expect(scripts.prestart).toBe("node scripts/ensure-installed.mjs");
    expect(scripts.pretest).toBe("node scripts/ensure-installed.mjs");
  });

  it("no node_modules: npm ci, saying why", () => {
    const run = setup(clone(null));
    expect([run.code, run.calls]).toEqual([0, "ci --no-audit --no-fund"]);
    expect(run.stderr).toContain("node_modules is missing");
  });

  it("installed after the lock file was written (CI's npm ci, then npm test): nothing", () => {
    expect(setup(clone({ "node_modules/hono": { version: "4.13.19" } }))).toEqual({
      code: 0,
      stderr: "",
      calls: "",
    });
  });

  it("a lock file newer than the install: npm ci only when a locked package differs", () => {
    const same = setup(clone({ "node_modules/hono": { version: "4.13.19" } }, { lockNewer: true }));
    expect(same.calls).toBe("");
    const older = setup(clone({ "node_modules/hono": { version: "4.12.0" } }, { lockNewer: true }));
    expect([older.calls, older.stderr]).toEqual([
      "ci --no-audit --no-fund",
      expect.stringContaining("hono 4.13.19"),
    ]);
  });
});
