/**
 * `sponson config check` and `sponson plan check`, run as the bin (offline: no service). The
 * production example passes; a broken config lists every problem with its path and exits 1;
 * secrets are checked by name with --env-file, never printed.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "../../cli/build.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const PRODUCTION = join(ROOT, "examples", "production", "wrangler.toml");
const dir = mkdtempSync(join(tmpdir(), "sponson-check-"));

beforeAll(async () => {
  await buildCli();
}, 60_000);

function sponson(args: string[]) {
  const run = spawnSync(process.execPath, [join(ROOT, "bin", "sponson.mjs"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const SECRETS = {
  SERVICE_SIGNING_KEY: JSON.stringify({ kty: "OKP", crv: "Ed25519", x: "x".repeat(43), d: "d".repeat(43) }),
  GITHUB_WEBHOOK_SECRET: "webhook-secret-value-0123456789",
  AUTH0_CLIENT_SECRET: "auth0-secret-value",
  SUPABASE_ACCESS_TOKEN: "sbp_value",
  GOOGLE_SERVICE_ACCOUNT_KEY: "{}",
  OKTA_API_TOKEN: "okta-value",
  KINDE_CLIENT_SECRET: "kinde-value",
  R2_API_TOKEN: "r2-value",
  AWS_SECRET_ACCESS_KEY: "aws-value",
};
const envFile = (secrets: Record<string, string>) =>
  Object.entries(secrets)
    .map(([k, v]) => `${k}='${v}'`)
    .join("\n");

describe("sponson config check", () => {
  it("the production example has no problems", () => {
    const run = sponson(["config", "check", "--config", PRODUCTION]);
    expect(run.stdout).toContain("no problems");
    expect(run.code).toBe(0);
  });

  it("with an env file holding every secret it names, still none", () => {
    const run = sponson([
      "config",
      "check",
      "--config",
      PRODUCTION,
      "--env-file",
      file("all.env", envFile(SECRETS)),
    ]);
    expect(run.stdout, run.stderr).toContain("no problems");
    expect(run.code).toBe(0);
  });

  it("a missing secret is named, with the connection that needs it; no secret value is printed", () => {
    const { OKTA_API_TOKEN: _, ...rest } = SECRETS;
    const run = sponson([
      "config",
      "check",
      "--config",
      PRODUCTION,
      "--env-file",
      file("some.env", envFile(rest)),
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "SPONSON_CONNECTIONS.okta-preview.secrets: Worker secret OKTA_API_TOKEN is not set",
    );
    for (const value of Object.values(rest)) if (value.length > 4) expect(run.stdout).not.toContain(value);
  });

  it("a broken config lists every problem at once, each with its path", () => {
    const broken = readFileSync(PRODUCTION, "utf8")
      .replace('SPONSON_AUDIENCE = "https://sponson.acme.example"\n', "")
      .replace('name = "acme/web"', 'name = "acme-web"')
      .replace('config = { domain = "acme.okta.com" }', "config = { }")
      .replace('"https://*.preview.example.com/*",', '"https://**.preview.example.com/*",')
      .replace('dead_letter_queue = "sponson-destroys-dlq"', 'dead_letter_queue = "other-dlq"')
      .replace('queue = "sponson-destroys-dlq"', 'queue = "other-dlq"')
      .replaceAll("../../workers", join(ROOT, "workers"));
    const run = sponson(["config", "check", "--config", file("broken.toml", broken), "--json"]);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { valid: boolean; problems: { path: string }[] };
    expect(report.valid).toBe(false);
    expect(report.problems.map((p) => p.path)).toEqual(
      expect.arrayContaining([
        "SPONSON_AUDIENCE",
        "SPONSON_REPOSITORIES.0.name",
        "SPONSON_CONNECTIONS.okta-preview.config.domain",
        "SPONSON_POLICY.environments.preview.items.0",
        "queues.consumers",
      ]),
    );
  });
});

describe("sponson plan check", () => {
  it("every example plan has no problems", () => {
    for (const plan of ["plan.json", "all-providers.plan.json", "shared.plan.json"]) {
      const run = sponson(["plan", "check", join(ROOT, "examples", plan)]);
      expect([plan, run.code, run.stdout]).toEqual([plan, 0, expect.stringContaining("no problems")]);
    }
  });

  it("a plan with several mistakes gets them all in one answer", () => {
    const plan = {
      $schema: "../schemas/plan.schema.json",
      version: 2,
      lines: [
        {
          id: "a",
          op: "auth0.nope",
          connection: "auth0-preview",
          params: { url: "https://{branchh}.example.com" },
        },
        {
          id: "b",
          op: "auth0.callbackUrl",
          connection: "auth0-preview",
          params: { client: "x y", url: "ftp://{pr}" },
        },
      ],
    };
    const run = sponson(["plan", "check", file("bad.plan.json", JSON.stringify(plan)), "--json"]);
    expect(run.code).toBe(1);
    expect((JSON.parse(run.stdout) as { problems: { path: string }[] }).problems.map((p) => p.path)).toEqual([
      "lines.0(a).op",
      "lines.0(a).params.url",
      "lines.1(b).params.client",
      "lines.1(b).params.url",
    ]);
  });
});
