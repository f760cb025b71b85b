/**
 * `npm start` and `npm test` install what is missing on a fresh clone (their pre-scripts run
 * scripts/ensure-installed.mjs), and only then: after `npm ci` (CI) they install nothing again.
 * Run in a folder of its own with a stand-in `npm` on PATH that records what it was asked. On a
 * machine whose Node is older than the project's, npm's engine warnings about packages the
 * project's own Node satisfies (the ~95 lines a real `npm ci` printed on Node 20, recorded in
 * test/fixtures/npm/) become one line saying why; anything else npm says passes through.
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
import { satisfies } from "../../scripts/engine-warnings.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const SCRIPT = join(ROOT, "scripts", "ensure-installed.mjs");
const scripts = (
  JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;
const work = mkdtempSync(join(tmpdir(), "sponson-setup-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// The stand-in npm: appends its arguments to calls.log, prints what npm ci printed on this
// machine's Node 20 (the EBADENGINE blocks), a block no Node 24 satisfies and a deprecation, and
// succeeds.
const bin = join(work, "bin");
mkdirSync(bin);
const NODE_20_STDERR = join(ROOT, "test", "fixtures", "npm", "ci-on-node-20.stderr.txt");
const FUTURE_BLOCK = [
  "npm warn EBADENGINE Unsupported engine {",
  "npm warn EBADENGINE   package: 'from-the-future@1.0.0',",
  "npm warn EBADENGINE   required: { node: '>=26' },",
  "npm warn EBADENGINE   current: { node: 'v20.20.2', npm: '11.19.1' }",
  "npm warn EBADENGINE }",
].join("\n");
writeFileSync(join(work, "future.txt"), `${FUTURE_BLOCK}\n`);
writeFileSync(
  join(bin, "npm"),
  `#!/bin/sh
echo "$@" >> "${join(work, "calls.log")}"
cat "${NODE_20_STDERR}" "${join(work, "future.txt")}" >&2
echo "npm warn deprecated old-thing@1.0.0: use new-thing" >&2
echo "added 1 package in 1s"
`,
);
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
  // The project's own Node: the `node` devDependency (an exact version), as in the root package.json.
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "app", devDependencies: { node: "24.21.0" } }),
  );
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
  return { code: run.status, stderr: run.stderr, stdout: run.stdout, calls };
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
      stdout: "",
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

describe("npm ci on a machine whose Node is older than the project's", () => {
  it("the engine warnings the project's Node satisfies become one line; the rest passes through", () => {
    const run = setup(clone(null));
    expect(run.code).toBe(0);
    expect(readFileSync(NODE_20_STDERR, "utf8").split("\n").filter(Boolean)).toHaveLength(95);
    const lines = run.stderr.split("\n").filter(Boolean);
    // The reason it installs, the block Node 24 does not satisfy (5 lines), the deprecation, the summary.
    expect(lines).toHaveLength(8);
    expect(lines.at(-1)).toMatch(
      /^setup: 19 packages \(sponson-edge, @azure\/core-process, .*\) require a newer Node than this machine's v20\.20\.2, which only runs npm here: the scripts run on the project's own Node 24\.21\.0 \(the devDependency node\), which they accept$/,
    );
    expect(run.stderr).toContain(FUTURE_BLOCK);
    expect(run.stderr).toContain("npm warn deprecated old-thing@1.0.0: use new-thing");
    expect(run.stdout).toBe("added 1 package in 1s\n");
  });
});

describe("reading an engines range as npm does", () => {
  it("every range npm warned about on Node 20: refused by v20.20.2, as npm said, met by the project's 24.21.0", () => {
    const ranges = [...readFileSync(NODE_20_STDERR, "utf8").matchAll(/required: \{ node: '([^']+)' \}/g)].map(
      (m) => m[1] as string,
    );
    expect(ranges).toHaveLength(19);
    for (const range of ranges)
      expect([range, satisfies("20.20.2", range), satisfies("24.21.0", range)]).toEqual([range, false, true]);
  });

  it.for([
    ["20.20.2", "^20.19.0 || >=22.12.0", true],
    ["22.1.0", "^20.19.0 || >=22.12.0", false],
    ["24.21.0", ">=18 <20", false],
    ["24.21.0", "24.x", true],
    ["24.21.0", "~24.20", false],
    ["24.21.0", ">= 24.21.0", true],
    ["24.21.0", ">=26", false],
    ["24.21.0", "latest", null],
  ] as const)("%s against %s: %s", ([version, range, expected]) => {
    expect(satisfies(version, range)).toBe(expected);
  });
});
