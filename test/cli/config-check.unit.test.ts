/**
 * `sponson config check` and `sponson plan check`, run as the bin (offline: no service). The
 * production example, copied where docs/deploy.md says, passes (its placeholders are warnings); a
 * broken config lists every problem with its path and exits 1, a `main` wrangler would not find
 * included; secrets are checked by name with --env-file, never printed.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "../../cli/build.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "sponson-check-"));
// Every config written here sits where docs/deploy.md puts the example: `main` (workers/index.ts) resolves.
symlinkSync(join(ROOT, "workers"), join(dir, "workers"));
const EXAMPLE = readFileSync(join(ROOT, "examples", "production", "wrangler.toml"), "utf8");
const PRODUCTION = join(dir, "wrangler.production.toml");
writeFileSync(PRODUCTION, EXAMPLE);

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
  WEBHOOK_SECRET_ACME_WEB: "acme-web-webhook-secret-0123456789",
  WEBHOOK_SECRET_ACME_API: "acme-api-webhook-secret-0123456789",
  AUTH0_CLIENT_SECRET: "auth0-secret-value",
  AUTH0_API_CLIENT_SECRET: "auth0-api-secret-value",
  SUPABASE_ACCESS_TOKEN: "sbp_value",
  GOOGLE_SERVICE_ACCOUNT_KEY: "{}",
  OKTA_API_TOKEN: "okta-value",
  KINDE_CLIENT_SECRET: "kinde-value",
  R2_API_TOKEN: "r2-value",
  AWS_SECRET_ACCESS_KEY: "aws-value",
  ENTRA_CLIENT_SECRET: "entra-value",
  COGNITO_SECRET_ACCESS_KEY: "cognito-value",
  KEYCLOAK_CLIENT_SECRET: "keycloak-value",
  CLERK_SECRET_KEY: "sk_test_clerkvalue",
  TURNSTILE_API_TOKEN: "turnstile-value",
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
      .replace('queue = "sponson-destroys-dlq"', 'queue = "other-dlq"');
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

describe("sponson config check: connections of several repositories", () => {
  it("a connection naming no repository is a problem; one naming no objects beside another repository's is a warning", () => {
    const example = readFileSync(PRODUCTION, "utf8");
    const unbound = example
      .replace(
        /(\[vars\.SPONSON_CONNECTIONS\.supabase-preview\]\n(?:[^\n]+\n)*?)repositories = \["acme\/web"\]\n/,
        "$1",
      )
      .replace('parents = ["auth0:acme.us.auth0.com:client:preview-app"]\n', "");
    expect(unbound).not.toBe(example);
    const run = sponson(["config", "check", "--config", file("unbound.toml", unbound)]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "SPONSON_CONNECTIONS.supabase-preview.repositories: names no repository, and 2 are configured (acme/web, acme/api)",
    );
    expect(run.stderr).toMatch(
      /warning: SPONSON_CONNECTIONS\.auth0-preview\.parents: bound to acme\/web and names no objects/,
    );
  });
});

describe("sponson config check --wrangler: the bindings the Worker needs", () => {
  it("names every binding, migration and rate limiter a copy lacks, and exits 1", () => {
    const stripped = readFileSync(PRODUCTION, "utf8")
      .replace('[[durable_objects.bindings]]\nname = "LEASE_LOCK"\nclass_name = "LeaseLock"\n', "")
      .replace('[[r2_buckets]]\nbinding = "RECEIPTS"\nbucket_name = "sponson-receipts"\n', "")
      .replace(/\[\[migrations\]\]\ntag = "v5"\n[^\n]*\n/, "")
      .replace(/\[\[ratelimits\]\]\n(?:[^\n]+\n)+/, "");
    const path = file("stripped.wrangler.toml", stripped);
    const run = sponson(["config", "check", "--wrangler", path]);
    expect([run.code, run.stdout]).toEqual([1, expect.stringContaining(`${path}: 4 problems`)]);
    for (const name of ["LEASE_LOCK (class LeaseLock)", "RECEIPTS", "migration v5", "RUN_RATE_LIMITER"])
      expect(run.stdout).toContain(name);
    const json = sponson(["config", "check", "--wrangler", path, "--json"]);
    expect((JSON.parse(json.stdout) as { problems: { path: string }[] }).problems.map((p) => p.path)).toEqual(
      ["durable_objects.bindings", "migrations", "ratelimits", "r2_buckets"],
    );
  });

  it("control: the root wrangler.toml itself lacks nothing", () => {
    const run = sponson(["config", "check", "--wrangler", join(ROOT, "wrangler.toml"), "--json"]);
    const paths = (JSON.parse(run.stdout) as { problems: { path: string }[] }).problems.map((p) => p.path);
    expect(paths.filter((p) => /^(durable_objects|migrations|ratelimits|r2_buckets|queues)/.test(p))).toEqual(
      [],
    );
  });
});

describe("sponson config check --wrangler: the Worker's code (main)", () => {
  const problemsOf = (run: { stdout: string }) =>
    (JSON.parse(run.stdout) as { problems: { path: string; message: string }[] }).problems;

  it("a main that does not resolve from the config's folder is a problem naming what wrangler looks for", () => {
    // The example as it was: main relative to examples/production/, copied to the root of a checkout.
    const moved = file(
      "moved.toml",
      EXAMPLE.replace('main = "workers/index.ts"', 'main = "../../workers/index.ts"'),
    );
    const run = sponson(["config", "check", "--wrangler", moved, "--json"]);
    expect(run.code).toBe(1);
    expect(problemsOf(run)).toEqual([
      {
        path: "main",
        message: expect.stringContaining(
          `../../workers/index.ts is not a file beside this config (it resolves to ${join(dir, "..", "..", "workers", "index.ts")})`,
        ),
      },
    ]);
    expect(problemsOf(run)[0]?.message).toContain("entry-point file not found");
  });

  it("the dev entry, or no main at all, is a problem too", () => {
    mkdirSync(join(dir, "dev", "entry"), { recursive: true });
    writeFileSync(join(dir, "dev", "entry", "index.ts"), "export default {};\n");
    const dev = sponson([
      "config",
      "check",
      "--wrangler",
      file("dev-entry.toml", EXAMPLE.replace('main = "workers/index.ts"', 'main = "dev/entry/index.ts"')),
      "--json",
    ]);
    expect(problemsOf(dev)).toEqual([{ path: "main", message: expect.stringContaining("is the dev entry") }]);
    const none = sponson([
      "config",
      "check",
      "--wrangler",
      file("no-main.toml", EXAMPLE.replace('main = "workers/index.ts"\n', "")),
      "--json",
    ]);
    expect(problemsOf(none)).toEqual([{ path: "main", message: expect.stringContaining("not set") }]);
  });
});

describe("sponson config check --wrangler: example values left in", () => {
  const warningsOf = (text: string) => {
    const run = sponson([
      "config",
      "check",
      "--wrangler",
      file(`w-${Math.random().toString(36).slice(2)}.toml`, text),
      "--json",
    ]);
    return (JSON.parse(run.stdout) as { warnings: { path: string; message: string }[] }).warnings;
  };
  const config = (vars: string) => `main = "workers/index.ts"\n[vars]\n${vars}\n`;

  it.for([
    ['SPONSON_AUDIENCE = "https://sponson.acme.example"', "SPONSON_AUDIENCE", "the example's company"],
    ['SPONSON_PUBLIC_URL = "https://sponson.example.com"', "SPONSON_PUBLIC_URL", "an example name or key"],
    [
      'SPONSON_REPOSITORIES = \'[{"name":"your-org/web","id":4242}]\'',
      "SPONSON_REPOSITORIES.0.name",
      "your-org",
    ],
    [
      'SPONSON_REPOSITORIES = \'[{"name":"octo/web","id":123456789}]\'',
      "SPONSON_REPOSITORIES.0.id",
      "a made-up id",
    ],
    ['[vars.X]\naccessKeyId = "AKIAEXAMPLEKEYID0001"', "X.accessKeyId", "an example name or key"],
    ['[vars.X]\naccessKeyId = "AKIAIOSFODNN7EXAMPLE"', "X.accessKeyId", "an example name or key"],
    ['[vars.X]\nclient = "example_app_client_id_0001"', "X.client", "an example name or key"],
    ['[vars.X]\nsecret = "WEBHOOK_SECRET_ACME_WEB"', "X.secret", "the example's company"],
    ['[vars.X]\naudience = "<AUD tag>"', "X.audience", "a <…> stand-in"],
    ['[vars.X]\nclientId = "00000000-0000-0000-0000-000000000000"', "X.clientId", "an all-zero id"],
  ] as const)("%s: a warning at its path", ([vars, path, kind]) => {
    expect(warningsOf(config(vars))).toContainEqual({ path, message: expect.stringContaining(kind) });
  });

  it("control: a deployment's own values are no placeholders", () => {
    const own = config(
      [
        'SPONSON_AUDIENCE = "https://sponson.octo.dev"',
        'SPONSON_REPOSITORIES = \'[{"name":"octo/web","id":718293645}]\'',
        '[vars.X]\naccessKeyId = "AKIA4QXZ7J2LMN3OPQRS"\nclientId = "8f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"',
      ].join("\n"),
    );
    expect(warningsOf(own).filter((w) => w.message.includes("placeholder"))).toEqual([]);
  });

  it("control: a marker inside a word of a real value is no placeholder (whole tokens only)", () => {
    const own = config(
      [
        'SPONSON_AUDIENCE = "https://sponson.acmeplumbing.com"',
        'SPONSON_PUBLIC_URL = "https://sponson.pacmeds.io"',
        'SPONSON_REPOSITORIES = \'[{"name":"counterexamples/web","id":718293645}]\'',
        '[vars.X]\ninstance = "ins_2acmepreviews"\ndomain = "auth.yourorganic.com"',
      ].join("\n"),
    );
    expect(warningsOf(own).filter((w) => w.message.includes("placeholder"))).toEqual([]);
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

describe("sponson plan check: vars and the URL shape check", () => {
  const planWith = (urls: string[]) =>
    file(
      `shape-${urls.length}-${Math.random().toString(36).slice(2)}.plan.json`,
      JSON.stringify({
        version: 2,
        lines: urls.map((url, i) => ({
          id: `l${i}`,
          op: "auth0.callbackUrl",
          connection: "auth0-preview",
          params: { client: "preview-app", url },
        })),
      }),
    );
  const problems = (run: { stdout: string }) =>
    (JSON.parse(run.stdout) as { problems: { path: string; message: string }[] }).problems;

  it("refuses wildcards over a public suffix and plain http, every line at once, saying why", () => {
    const run = sponson([
      "plan",
      "check",
      planWith([
        "https://*.vercel.app/callback",
        "https://*-site.netlify.app/callback",
        "http://pr-{pr}.preview.example.com/callback",
        "https://*.preview.example.com/callback",
        "http://localhost:3000/callback",
      ]),
      "--json",
    ]);
    expect(run.code).toBe(1);
    expect(problems(run).map((p) => [p.path, p.message.split(":")[0]])).toEqual([
      ["lines.0(l0).params.url", "urlChecks.publicSuffixWildcard"],
      ["lines.1(l1).params.url", "urlChecks.publicSuffixWildcard"],
      ["lines.2(l2).params.url", "urlChecks.plainHttp"],
    ]);
    expect(problems(run)[0]?.message).toContain("vercel.app, a public suffix");
  });

  it("{vars.url} needs --var url=…; with it the filled item is checked like any other", () => {
    const plan = planWith(["{vars.url}/callback"]);
    const missing = sponson(["plan", "check", plan, "--json"]);
    expect(missing.code).toBe(1);
    expect(problems(missing)).toEqual([
      { path: "lines.0(l0).params.url", message: expect.stringContaining("--var url=") },
    ]);
    const given = sponson(["plan", "check", plan, "--var", "url=https://my-app-git-feat-x.vercel.app"]);
    expect([given.code, given.stdout]).toEqual([0, expect.stringContaining("no problems")]);
    const wildcard = sponson(["plan", "check", plan, "--var", "url=https://*.vercel.app", "--json"]);
    expect(problems(wildcard).map((p) => p.message.split(":")[0])).toEqual([
      "urlChecks.publicSuffixWildcard",
    ]);
    const malformed = sponson(["plan", "check", plan, "--var", "url"]);
    expect([malformed.code, malformed.stderr]).toEqual([2, expect.stringContaining("--var")]);
  });

  it("a var in a param naming the provider object is a problem", () => {
    const path = file(
      "var-client.plan.json",
      JSON.stringify({
        version: 2,
        lines: [
          {
            id: "a",
            op: "auth0.callbackUrl",
            connection: "auth0-preview",
            params: { client: "{vars.client}", url: "https://a.preview.example.com" },
          },
        ],
      }),
    );
    const run = sponson(["plan", "check", path, "--var", "client=preview-app", "--json"]);
    expect(run.code).toBe(1);
    expect(problems(run)).toEqual([
      { path: "lines.0(a).params.client", message: expect.stringContaining("item param (url)") },
    ]);
  });
});

describe("sponson config check: URL shape opt-outs", () => {
  it("lists each environment's opt-out, in text and in JSON", () => {
    const wrangler = file(
      "optout.wrangler.toml",
      `[vars]
EMULATORS = "on"
SPONSON_POLICY = '{"version":1,"environments":{"preview":{"parents":["*"],"items":["*"],"urlChecks":{"plainHttp":false}}}}'
`,
    );
    const text = sponson(["config", "check", "--config", wrangler]);
    expect(text.stdout + text.stderr).toContain(
      "environment preview opts out of the URL shape check: plainHttp (SPONSON_POLICY.environments.preview.urlChecks)",
    );
    const json = sponson(["config", "check", "--config", wrangler, "--json"]);
    expect(JSON.parse(json.stdout).urlCheckOptOuts).toEqual([
      { environment: "preview", rules: ["plainHttp"] },
    ]);
  });
});

describe("sponson config check: repositories", () => {
  /** The production example with acme/web's entry given `extra` TOML lines. */
  const repoConfig = (name: string, extra: string) =>
    file(
      name,
      readFileSync(PRODUCTION, "utf8").replace(
        'defaultBranch = "main"\n',
        `defaultBranch = "main"\n${extra}\n`,
      ),
    );

  it("a repository's webhookSecret that is not set is a problem naming the repository and the secret, never a value", () => {
    // The example names acme/web's own secret; the env file lacks it.
    const { WEBHOOK_SECRET_ACME_WEB: _unset, ...others } = SECRETS;
    const run = sponson([
      "config",
      "check",
      "--config",
      PRODUCTION,
      "--env-file",
      file("repos.env", envFile(others)),
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("1 problem\n");
    expect(run.stdout).toMatch(
      /SPONSON_REPOSITORIES\.0\.webhookSecret: repository acme\/web: Worker secret WEBHOOK_SECRET_ACME_WEB is not set/,
    );
    for (const value of Object.values(SECRETS))
      if (value.length > 4) expect(run.stdout + run.stderr).not.toContain(value);
  });

  it("pull requests granted an environment a close never destroys: a warning (text and JSON), exit 0", () => {
    const wrangler = repoConfig(
      "pr-envs.wrangler.toml",
      'refEnvironments = { pullRequest = ["preview", "staging"] }',
    );
    const text = sponson(["config", "check", "--config", wrangler]);
    expect(text.code, text.stdout + text.stderr).toBe(0);
    expect(text.stdout).toContain("no problems");
    expect(text.stderr).toMatch(
      /warning: SPONSON_REPOSITORIES\.0\.refEnvironments\.pullRequest: repository acme\/web: .*environment staging.*never destroyed on close/,
    );
    const json = sponson(["config", "check", "--config", wrangler, "--json"]);
    const report = JSON.parse(json.stdout) as { valid: boolean; warnings: { path: string }[] };
    expect(report.valid).toBe(true);
    // The example's placeholders are warned of too; this one is the only one about pull requests.
    expect(report.warnings.filter((w) => w.path.includes("refEnvironments"))).toEqual([
      {
        path: "SPONSON_REPOSITORIES.0.refEnvironments.pullRequest",
        message: expect.stringContaining("staging"),
      },
    ]);
  });
});
