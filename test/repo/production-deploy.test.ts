/**
 * docs/deploy.md's production example works from where the doc says to put it: copied exactly as the
 * doc's `cp` line says into a folder shaped like a clone (every file git would check out, the
 * installed node_modules beside them), `sponson config check --wrangler` has no problem with it (only
 * warnings, one per placeholder value left in) and `wrangler deploy --dry-run` bundles the
 * production entry from it. A dry run binds nothing and sends nothing.
 */
import { execFile, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { parse } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "../../cli/build.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const DEPLOY = readFileSync(join(ROOT, "docs", "deploy.md"), "utf8");
const work = mkdtempSync(join(tmpdir(), "sponson-deploy-"));
const clone = join(work, "sponson-edge");
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The doc's one copy command: `cp examples/production/wrangler.toml <name>`, run from the clone's root. */
const COPY = /^cp examples\/production\/wrangler\.toml (\S+)$/m.exec(DEPLOY);
const target = COPY?.[1] ?? "";

beforeAll(async () => {
  await buildCli();
  // What a clone holds: the files git tracks (and new ones it would), as they are now.
  const files = spawnSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: ROOT,
    encoding: "utf8",
  }).stdout.split("\0");
  for (const file of files.filter((f) => f !== "" && existsSync(join(ROOT, f)))) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(clone, file));
  }
  symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"));
  copyFileSync(join(clone, "examples", "production", "wrangler.toml"), join(clone, target));
}, 120_000);

function configCheck(config: string) {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, "bin", "sponson.mjs"), "config", "check", "--wrangler", config, "--json"],
    { cwd: clone, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: work } },
  );
  return { code: run.status, report: JSON.parse(run.stdout) as Report };
}

interface Report {
  valid: boolean;
  problems: { path: string; message: string }[];
  warnings: { path: string; message: string }[];
}

describe("the production example, copied as docs/deploy.md says", () => {
  it("the doc says where: one `cp` to a file at the clone's root", () => {
    expect(target).toMatch(/^[\w.-]+\.toml$/);
    expect(DEPLOY).toContain(`--config ${target}`);
  });

  it("passes config check --wrangler, with a warning for each placeholder left in", () => {
    const { code, report } = configCheck(target);
    expect(report.problems).toEqual([]);
    expect(code).toBe(0);
    const warned = new Set(report.warnings.map((w) => w.path));
    for (const path of [
      "SPONSON_AUDIENCE",
      "SPONSON_REPOSITORIES.0.name",
      "SPONSON_REPOSITORIES.0.id",
      "SPONSON_CONNECTIONS.auth0-preview.config.domain",
      "SPONSON_CONNECTIONS.auth0-preview.config.clientId",
      "SPONSON_CONNECTIONS.s3-preview.config.accessKeyId",
      "SPONSON_POLICY.environments.preview.parents.0",
      "SPONSON_POLICY.environments.preview.items.0",
    ])
      expect(warned, path).toContain(path);
  });

  it("warns on every value of [vars] but the generic ones: secret names, types, ops, environment, numbers", () => {
    const { report } = configCheck(target);
    const warned = new Set(report.warnings.map((w) => w.path));
    const vars = (parse(readFileSync(join(clone, target), "utf8")) as { vars: Record<string, unknown> }).vars;
    const unwarned: string[] = [];
    const walk = (value: unknown, path: string[]): void => {
      if (Array.isArray(value)) for (const [i, v] of value.entries()) walk(v, [...path, String(i)]);
      else if (typeof value === "object" && value !== null)
        for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
      else if (!warned.has(path.join("."))) unwarned.push(String(value));
    };
    for (const [name, value] of Object.entries(vars)) walk(value, [name]);
    const GENERIC =
      /^(?:\d{1,3}|[A-Z][A-Z0-9_]+|[a-z0-9]+(?:\.\*)?|previews?|sponson(?:-destroys(?:-dlq)?)?|us-east-1|http:\/\/localhost:3000\/\*)$/;
    expect(unwarned.filter((value) => !GENERIC.test(value))).toEqual([]);
    expect(warned.size).toBeGreaterThanOrEqual(30);
  });

  it("wrangler deploy --dry-run bundles the production entry from it", async () => {
    const out = join(work, "out");
    const run = await promisify(execFile)(
      join(ROOT, "node_modules", ".bin", "wrangler"),
      ["deploy", "--dry-run", "--config", target, "--outdir", out],
      {
        cwd: clone,
        env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", HOME: work },
        timeout: 120_000,
      },
    ).catch((err: { stdout?: string; stderr?: string }) => {
      throw new Error(`wrangler deploy --dry-run failed:\n${err.stderr ?? ""}\n${err.stdout ?? ""}`);
    });
    expect(run.stdout).toContain("--dry-run: exiting now.");
    expect(existsSync(join(out, "index.js"))).toBe(true);
  }, 150_000);
});
