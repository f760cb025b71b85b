/**
 * `sponson config check` and the Worker secrets, offline (docs/deploy.md, "Check the configuration"):
 * by name from `wrangler secret list` (--secret-names, a file or `-` for stdin), so no private key
 * has to sit in a file to be checked; each problem is said once, however many connections share it;
 * an env file's stand-in for a key is "a placeholder", not "not JSON".
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "../../cli/build.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "sponson-check-secrets-"));
// Copies of the example sit where docs/deploy.md puts them: `main` (workers/index.ts) resolves.
symlinkSync(join(ROOT, "workers"), join(dir, "workers"));
const EXAMPLE = readFileSync(join(ROOT, "examples", "production", "wrangler.toml"), "utf8");

beforeAll(async () => {
  await buildCli();
}, 60_000);

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function sponson(args: string[], input?: string) {
  const run = spawnSync(process.execPath, [join(ROOT, "bin", "sponson.mjs"), ...args], {
    cwd: dir,
    encoding: "utf8",
    input,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Every Worker secret the example names, as `wrangler secret list` prints them. */
const NAMES = [
  "SERVICE_SIGNING_KEY",
  "GITHUB_WEBHOOK_SECRET",
  "WEBHOOK_SECRET_ACME_WEB",
  "WEBHOOK_SECRET_ACME_API",
  "AUTH0_CLIENT_SECRET",
  "AUTH0_API_CLIENT_SECRET",
  "SUPABASE_ACCESS_TOKEN",
  "GOOGLE_SERVICE_ACCOUNT_KEY",
  "OKTA_API_TOKEN",
  "KINDE_CLIENT_SECRET",
  "R2_API_TOKEN",
  "AWS_SECRET_ACCESS_KEY",
  "ENTRA_CLIENT_SECRET",
  "COGNITO_SECRET_ACCESS_KEY",
  "KEYCLOAK_CLIENT_SECRET",
  "CLERK_SECRET_KEY",
  "TURNSTILE_API_TOKEN",
];
const secretList = (names: string[]) =>
  JSON.stringify(
    names.map((name) => ({ name, type: "secret_text" })),
    null,
    "  ",
  );

/** The example with its keyless blocks on: the issuer, and two federated connections. */
const keyless = EXAMPLE.replace(
  '# SPONSON_PUBLIC_URL = "https://sponson.acme.example"',
  'SPONSON_PUBLIC_URL = "https://sponson.acme.example"',
)
  .replace(
    /^# (\[vars\.SPONSON_CONNECTIONS\.s3-keyless\]\n)((?:# .*\n)+)/m,
    (_, head: string, body: string) => [head, body.replaceAll(/^# /gm, "")].join(""),
  )
  .replace(
    "[vars.SPONSON_CONNECTIONS.s3-keyless]",
    '[vars.SPONSON_CONNECTIONS.cognito-keyless]\ntype = "cognito"\nenvironments = ["preview"]\nrepositories = ["acme/web"]\nconfig = { region = "us-east-1" }\nfederated = { roleArn = "arn:aws:iam::210987654321:role/sponson-cognito" }\n\n[vars.SPONSON_CONNECTIONS.s3-keyless]',
  );

describe("config check --secret-names: the secrets by name, from wrangler secret list", () => {
  const config = file("wrangler.production.toml", EXAMPLE);

  it("every secret the configuration needs is listed: no problems, and no value was ever read", () => {
    const run = sponson([
      "config",
      "check",
      "--wrangler",
      config,
      "--secret-names",
      file("all.json", secretList(NAMES)),
    ]);
    expect(run.stdout, run.stderr).toContain("no problems");
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("whether each Worker secret is set is not checked");
  });

  it("a secret not in the list is named once, with the connection that needs it", () => {
    const run = sponson([
      "config",
      "check",
      "--wrangler",
      config,
      "--secret-names",
      file(
        "some.json",
        secretList(NAMES.filter((n) => n !== "OKTA_API_TOKEN" && n !== "WEBHOOK_SECRET_ACME_API")),
      ),
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("2 problems");
    expect(run.stdout).toContain(
      "SPONSON_CONNECTIONS.okta-preview.secrets: Worker secret OKTA_API_TOKEN is not set",
    );
    expect(run.stdout).toContain(
      "SPONSON_REPOSITORIES.1.webhookSecret: repository acme/api: Worker secret WEBHOOK_SECRET_ACME_API is not set",
    );
  });

  it("- reads the list from stdin (wrangler secret list | sponson config check --secret-names -)", () => {
    const run = sponson(["config", "check", "--wrangler", config, "--secret-names", "-"], secretList(NAMES));
    expect([run.code, run.stdout]).toEqual([0, expect.stringContaining("no problems")]);
  });

  it("a plain list of names works too: one a line, or separated by commas or spaces", () => {
    const lines = sponson([
      "config",
      "check",
      "--wrangler",
      config,
      "--secret-names",
      file("names.txt", `${NAMES.join("\n")}\n`),
    ]);
    expect([lines.code, lines.stdout], lines.stderr).toEqual([0, expect.stringContaining("no problems")]);
    const mixed = `${NAMES.slice(0, 5).join(", ")}\n${NAMES.slice(5).join(" ")}`;
    const stdin = sponson(["config", "check", "--wrangler", config, "--secret-names", "-"], mixed);
    expect([stdin.code, stdin.stdout], stdin.stderr).toEqual([0, expect.stringContaining("no problems")]);
    // Control: the same plain list without one name finds it missing, so the list was read.
    const some = NAMES.filter((n) => n !== "OKTA_API_TOKEN").join(",");
    const missing = sponson(["config", "check", "--wrangler", config, "--secret-names", "-"], some);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain("Worker secret OKTA_API_TOKEN is not set");
  });

  it("a list that is neither is refused (exit 2), naming what is wrong and what it takes", () => {
    const pretty = sponson(
      ["config", "check", "--wrangler", config, "--secret-names", "-"],
      "Secret Name: OKTA_API_TOKEN\n",
    );
    expect(pretty.code).toBe(2);
    expect(pretty.stderr).toContain('"Name:" is not a secret name');
    expect(pretty.stderr).toContain("wrangler secret list");
    const json = sponson(["config", "check", "--wrangler", config, "--secret-names", "-"], '[{"nom": 1}]');
    expect(json.code).toBe(2);
    expect(json.stderr).toContain("is not a list of secrets");
  });

  it("nothing on stdin (wrangler secret list failed) is refused, not read as no secrets set", () => {
    const run = sponson(["config", "check", "--wrangler", config, "--secret-names", "-"], "\n");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--secret-names - is empty");
    expect(run.stderr).toContain("CLOUDFLARE_API_TOKEN");
    // Control: wrangler's answer for a Worker with no secrets is a list, and is read as one.
    const none = sponson(["config", "check", "--wrangler", config, "--secret-names", "-"], "[]");
    expect(none.code).toBe(1);
    expect(none.stdout).toContain("SERVICE_SIGNING_KEY: not set");
  });

  it("a JSON var kept as a secret is set by name, its content not judged (a warning says so)", () => {
    const withoutPolicy =
      EXAMPLE.slice(0, EXAMPLE.indexOf("# The write policy")) +
      EXAMPLE.slice(EXAMPLE.indexOf("[[durable_objects.bindings]]"));
    const run = sponson([
      "config",
      "check",
      "--wrangler",
      file("policy-secret.toml", withoutPolicy),
      "--secret-names",
      file("with-policy.json", secretList([...NAMES, "SPONSON_POLICY"])),
      "--json",
    ]);
    const report = JSON.parse(run.stdout) as {
      problems: { path: string }[];
      warnings: { path: string; message: string }[];
    };
    expect(report.problems).toEqual([]);
    expect(report.warnings).toContainEqual({
      path: "SPONSON_POLICY",
      message: expect.stringContaining("by name only"),
    });
  });
});

describe("each problem once", () => {
  it("two federated connections, no issuer key: the key's line and the issuer's once each", () => {
    const config = file(
      "keyless.toml",
      keyless.replace(
        'SPONSON_PUBLIC_URL = "https://sponson.acme.example"',
        'SPONSON_PUBLIC_URL = "http://sponson.acme.example"',
      ),
    );
    const run = sponson([
      "config",
      "check",
      "--wrangler",
      config,
      "--secret-names",
      file("no-fed.json", secretList(NAMES)),
    ]);
    expect(run.code).toBe(1);
    const lines = run.stdout.split("\n").filter((l) => l.startsWith("  "));
    expect(lines.filter((l) => l.includes("FEDERATION_SIGNING_KEY:"))).toEqual([
      expect.stringMatching(/connections cognito-keyless and s3-keyless are federated/),
    ]);
    expect(lines.filter((l) => l.includes("SPONSON_PUBLIC_URL:"))).toHaveLength(1);
    expect(new Set(lines).size).toBe(lines.length);
  });

  it("control: with the key listed and an https issuer, neither is said", () => {
    const run = sponson([
      "config",
      "check",
      "--wrangler",
      file("keyless-ok.toml", keyless),
      "--secret-names",
      file("fed.json", secretList([...NAMES, "FEDERATION_SIGNING_KEY"])),
    ]);
    expect([run.code, run.stdout]).toEqual([0, expect.stringContaining("no problems")]);
  });
});

describe("an env file's placeholder for a key", () => {
  it("says it is a placeholder (counted as set, not judged), never that it is not JSON, once per secret", () => {
    const env = [
      ...NAMES.filter((n) => n !== "SERVICE_SIGNING_KEY").map((n) => `${n}='value-of-${n.toLowerCase()}'`),
      "SERVICE_SIGNING_KEY='<piped into wrangler secret put>'",
      "FEDERATION_SIGNING_KEY=xxx",
    ].join("\n");
    const run = sponson([
      "config",
      "check",
      "--wrangler",
      file("keyless-env.toml", keyless),
      "--env-file",
      file("p.env", env),
    ]);
    expect(run.stdout + run.stderr).not.toContain("is not JSON");
    expect([run.code, run.stdout]).toEqual([0, expect.stringContaining("no problems")]);
    const placeholders = run.stderr.split("\n").filter((l) => l.includes("is a placeholder"));
    expect(placeholders).toHaveLength(2);
    expect(placeholders).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^warning: SERVICE_SIGNING_KEY: is a placeholder/),
        expect.stringMatching(/^warning: FEDERATION_SIGNING_KEY: is a placeholder/),
      ]),
    );
    expect(run.stdout + run.stderr).not.toContain("piped into");
  });

  it("control: a key that is not a placeholder and not JSON is still refused, once", () => {
    const env = [...NAMES.map((n) => `${n}='value-of-${n.toLowerCase()}'`)].join("\n");
    const run = sponson([
      "config",
      "check",
      "--wrangler",
      file("plain.toml", EXAMPLE),
      "--env-file",
      file("n.env", env),
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout.split("\n").filter((l) => l.includes("SERVICE_SIGNING_KEY:"))).toHaveLength(1);
  });
});
