#!/usr/bin/env node
/**
 * Mutation checks for the fleet property (test/property/fleet-histories.test.ts): for each fix,
 * revert its commit in a scratch copy of the tree and run the property there; the fix is covered
 * when a history fails. Prints a table: fix → commit → does reverting it make a history fail (seed).
 *
 *   node scripts/property-mutations.mjs                 # every fix of MUTATIONS found in `git log`
 *   node scripts/property-mutations.mjs <commit> ...    # these commits, named by their subjects
 *
 * Each fix is found by a pattern on the commit subjects of HEAD's history (the fixes land from
 * other branches, so their ids are not known here). SPONSON_PROPERTY_RUNS (default 30) and
 * SPONSON_PROPERTY_SEED (default 20) and SPONSON_PROPERTY_FEATURES (default `all`) are passed on.
 * The first row is the control: nothing reverted, every history must pass. Needs node_modules in
 * the working tree (linked into the scratch copy).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(new URL("..", import.meta.url).pathname);

/** The fixes of issue 20 the property must catch, each found by a pattern on its commit subject. */
const MUTATIONS = [
  // Later commits of a fix's branch build on it: those are reverted with it (newest first).
  {
    fix: "identity keyed by (op, key, parent)",
    pattern: /^One item identity|^Recovery: an intent resolved by an earlier one/,
  },
  { fix: "every line of a run gets a result", pattern: /^Every answer true/ },
  {
    fix: "never drop intents on doubt (a taken waiter is not timed out)",
    pattern: /^Combining: a waiter whose changes a live holder took/,
  },
  {
    fix: "scope lease checked before ownership changes",
    pattern: /^Scope lease checked by a round trip|^A failed read of one waiter's scope lock/,
  },
  {
    fix: "both doubt fixes (taken waiter kept; scope leases re-checked before the write)",
    pattern:
      /^Combining: a waiter whose changes a live holder took|^Scope lease checked by a round trip|^A failed read of one waiter's scope lock/,
  },
  { fix: "chunked big groups (any plan size)", pattern: /^Any plan size/ },
  { fix: "post-write fencing check", pattern: /^Fencing around the write/ },
  { fix: "lock-delay after an expiry", pattern: /^Lock-delay/ },
  { fix: "GCS 412 re-decide", pattern: /^GCS 412/ },
];

const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();

function commitsFor(pattern) {
  const log = git("log", "--no-merges", "--format=%H %s", "HEAD").split("\n");
  return log.filter((l) => pattern.test(l.slice(41))).map((l) => l.slice(0, 40));
}

/**
 * A scratch clone of HEAD (objects shared, nothing of this tree touched) with `commits` reverted by
 * git's three-way revert, newest first; test files, README and docs keep HEAD's version, so the
 * property that runs is this tree's.
 */
function tryRevert(commits) {
  const dir = mkdtempSync(join(tmpdir(), "sponson-mutation-"));
  const head = git("rev-parse", "HEAD");
  const run = (...args) =>
    spawnSync("git", ["-c", "user.name=mutation", "-c", "user.email=mutation@localhost", ...args], {
      cwd: dir,
      encoding: "utf8",
    });
  execFileSync("git", ["clone", "-q", "--shared", "--no-checkout", root, dir]);
  run("checkout", "-q", "--detach", head);
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  for (const c of commits) {
    const reverted = run("revert", "--no-commit", c);
    if (reverted.status !== 0) {
      // Conflicts only in tests and docs are resolved to HEAD's side; anything else is reported.
      const conflicted = run("diff", "--name-only", "--diff-filter=U").stdout.split("\n").filter(Boolean);
      const code = conflicted.filter((f) => !f.startsWith("test/") && !f.endsWith(".md"));
      if (code.length > 0) return { dir, error: `does not revert cleanly (${code.join(", ")})` };
    }
  }
  run("checkout", head, "--", "test", "README.md", "docs");
  return { dir, error: null };
}

function runProperty(dir) {
  const env = {
    ...process.env,
    SPONSON_PROPERTY_FEATURES: process.env.SPONSON_PROPERTY_FEATURES ?? "all",
    SPONSON_PROPERTY_RUNS: process.env.SPONSON_PROPERTY_RUNS ?? "30",
    SPONSON_PROPERTY_SEED: process.env.SPONSON_PROPERTY_SEED ?? "20",
  };
  const files = ["test/property/fleet-histories.test.ts", "test/property/gcs-races.test.ts"];
  const out = spawnSync("npx", ["vitest", "run", ...files], {
    cwd: dir,
    env,
    encoding: "utf8",
    timeout: 1_200_000,
  });
  const text = `${out.stdout}${out.stderr}`;
  const seed = /\{ seed: (-?\d+), path: "([^"]*)"/.exec(text);
  const problem = /\+ {3}"([^"]{0,160})/.exec(text);
  return {
    failed: out.status !== 0,
    seed: seed ? `seed ${seed[1]} path ${seed[2]}` : "",
    problem: problem ? problem[1] : "",
  };
}

const asked = process.argv.slice(2);
const rows = asked.length
  ? asked.map((c) => ({ fix: git("log", "-1", "--format=%s", c).slice(0, 60), commits: [c] }))
  : MUTATIONS.map((m) => ({ fix: m.fix, commits: commitsFor(m.pattern) }));

const table = [];
// The control: with nothing reverted every history must pass, or a failure below proves nothing.
{
  const { dir } = tryRevert([]);
  try {
    const r = runProperty(dir);
    table.push([
      "(nothing reverted: the control)",
      "-",
      r.failed ? `FAILS (${r.seed}): the rows below prove nothing` : "every history passes",
      r.problem,
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(table.at(-1).join(" | "));
}
for (const row of rows) {
  if (row.commits.length === 0) {
    table.push([row.fix, "-", "not merged yet", ""]);
    continue;
  }
  const { dir, error } = tryRevert(row.commits);
  try {
    if (error) {
      table.push([row.fix, row.commits.map((c) => c.slice(0, 7)).join(","), error, ""]);
      console.log(table.at(-1).join(" | "));
      continue;
    }
    const r = runProperty(dir);
    table.push([
      row.fix,
      row.commits.map((c) => c.slice(0, 7)).join(","),
      r.failed ? `yes, a history fails (${r.seed})` : "NO: every history passes",
      r.problem,
    ]);
  } finally {
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
  console.log(table.at(-1).join(" | "));
}
console.log("\n| fix | reverted commits | does a history fail? | first problem |\n|---|---|---|---|");
for (const r of table) console.log(`| ${r.join(" | ")} |`);
