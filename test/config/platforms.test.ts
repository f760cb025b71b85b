/**
 * Platform connections in the configuration (docs/configuration.md, "Platform connections"): the
 * schema refuses what could never work or would be unsafe, the report names what is missing, and
 * GET /v1/config/status and the dashboard show each connection. Names only, never a value.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ConfigStatus } from "../../shared/schemas/config-status";
import { configFromEnv } from "../../workers/config/config";
import { checkConfig } from "../../workers/config/config-report";
import { ConfigPanel } from "../../workers/dashboard/config-panel";
import { call, testApp } from "../helpers/app";
import { auth0 } from "../helpers/config-vars";

const TOKEN_VALUE = "vercel-api-token-value-0123456789";
const HOOK_VALUE = "vercel-hook-secret-value-0123456789";

const plan = (connection = "auth0-preview") => ({
  version: 2,
  lines: [
    { id: "cb", op: "auth0.callbackUrl", connection, params: { clientId: "app", url: "{previewUrl}/cb" } },
  ],
});

const vercel = (extra: Record<string, unknown> = {}) => ({
  name: "web-vercel",
  platform: "vercel",
  project: "prj_abc123",
  repository: "acme/web",
  environment: "preview",
  plan: plan(),
  webhookSecret: "VERCEL_WEBHOOK_SECRET_WEB",
  apiToken: "VERCEL_TOKEN_WEB",
  ...extra,
});

const netlify = (extra: Record<string, unknown> = {}) => ({
  name: "web-netlify",
  platform: "netlify",
  site: "3f1c2a4e-1111-4222-8333-444455556666",
  repository: "acme/web",
  environment: "staging",
  plan: plan(),
  webhookSecret: "NETLIFY_WEBHOOK_SECRET_WEB",
  ...extra,
});

function vars(platforms: object[], extra: Record<string, unknown> = {}) {
  return {
    SPONSON_REPOSITORIES: JSON.stringify([{ name: "acme/web", id: 4242 }]),
    SPONSON_CONNECTIONS: JSON.stringify({
      "auth0-preview": auth0({ environments: ["preview", "staging"] }),
    }),
    SPONSON_ENVIRONMENTS: JSON.stringify(["preview", "staging"]),
    SPONSON_PLATFORMS: JSON.stringify(platforms),
    ...extra,
  };
}

const secrets = {
  AUTH0_CLIENT_SECRET: "auth0-client-secret-value",
  VERCEL_WEBHOOK_SECRET_WEB: HOOK_VALUE,
  VERCEL_TOKEN_WEB: TOKEN_VALUE,
  NETLIFY_WEBHOOK_SECRET_WEB: HOOK_VALUE,
};

const platformProblems = (v: Record<string, unknown>, secretsKnown = true) =>
  checkConfig(v, { secretsKnown }).problems.filter((p) => p.path.startsWith("SPONSON_PLATFORMS"));

describe("SPONSON_PLATFORMS: what the schema refuses", () => {
  it("a production target: production deployments never register preview URLs", () => {
    const problems = platformProblems({ ...vars([vercel({ targets: ["production"] })]), ...secrets });
    expect(problems).toEqual([
      { path: "SPONSON_PLATFORMS.0.targets.0", message: expect.stringMatching(/production/) },
    ]);
  });

  it("two connections applying into one repository's environment: each would remove the other's entries", () => {
    const problems = platformProblems({
      ...vars([vercel(), netlify({ environment: "preview" })]),
      ...secrets,
    });
    expect(problems).toEqual([
      {
        path: "SPONSON_PLATFORMS",
        message: expect.stringMatching(/one platform connection per repository and environment/),
      },
    ]);
  });

  it("one project connected twice, and a secret name that is one of the service's own keys", () => {
    expect(
      platformProblems(
        vars([
          vercel(),
          vercel({ name: "again", environment: "staging", webhookSecret: "VERCEL_WEBHOOK_SECRET_AGAIN" }),
        ]),
      ),
    ).toEqual([{ path: "SPONSON_PLATFORMS", message: "a project or site is connected once" }]);
    expect(platformProblems(vars([vercel({ apiToken: "SERVICE_SIGNING_KEY" })]))).toEqual([
      { path: "SPONSON_PLATFORMS.0.apiToken", message: expect.stringMatching(/own keys/) },
      { path: "SPONSON_PLATFORMS.0.apiToken", message: expect.stringMatching(/TOKEN or SECRET/) },
    ]);
  });

  it("one webhook secret named by two connections, or a GitHub secret: one site's admins could sign another's events", () => {
    const shared = netlify({
      name: "docs-netlify",
      site: "3f1c2a4e-1111-4222-8333-444455556667",
      environment: "preview",
      repository: "acme/docs",
    });
    expect(platformProblems(vars([netlify(), shared]))).toEqual([
      { path: "SPONSON_PLATFORMS", message: expect.stringMatching(/a secret of its own/) },
    ]);
    expect(platformProblems(vars([netlify({ webhookSecret: "GITHUB_WEBHOOK_SECRET" })]))).toEqual([
      { path: "SPONSON_PLATFORMS", message: expect.stringMatching(/a secret of its own/) },
    ]);
    // Control: each with its own.
    expect(
      platformProblems(vars([netlify(), { ...shared, webhookSecret: "NETLIFY_WEBHOOK_SECRET_DOCS" }]), false),
    ).toEqual([expect.objectContaining({ path: "SPONSON_PLATFORMS.1.repository" })]);
  });

  it("a Vercel connection without its API token: gitSource could never be read", () => {
    const { apiToken: _, ...withoutToken } = vercel();
    expect(platformProblems(vars([withoutToken]))).toEqual([
      { path: "SPONSON_PLATFORMS.0.apiToken", message: expect.any(String) },
    ]);
  });
});

describe("SPONSON_PLATFORMS: what the report checks beyond the schema", () => {
  it("a repository that is not configured, and an environment a close never destroys", () => {
    const problems = platformProblems({
      ...vars([vercel({ repository: "acme/other", environment: "qa" })]),
      ...secrets,
    });
    expect(problems.map((p) => p.path)).toEqual([
      "SPONSON_PLATFORMS.0.repository",
      "SPONSON_PLATFORMS.0.environment",
      // The plan's connection is not allowed in qa either.
      "SPONSON_PLATFORMS.0.plan.lines.0.connection",
    ]);
    expect(problems[0]?.message).toMatch(/acme\/other is not in SPONSON_REPOSITORIES/);
    expect(problems[1]?.message).toMatch(/never destroy/);
  });

  it("names each unset secret, never a value; unknown secrets are not judged", () => {
    const problems = platformProblems(vars([vercel()]));
    expect(problems).toEqual([
      {
        path: "SPONSON_PLATFORMS.0.webhookSecret",
        message: expect.stringMatching(/VERCEL_WEBHOOK_SECRET_WEB is not set/),
      },
      { path: "SPONSON_PLATFORMS.0.apiToken", message: expect.stringMatching(/VERCEL_TOKEN_WEB is not set/) },
    ]);
    expect(platformProblems(vars([vercel()]), false)).toEqual([]);
  });

  it("a plan line through a connection that is not configured", () => {
    expect(platformProblems({ ...vars([netlify({ plan: plan("nowhere") })]), ...secrets })).toEqual([
      {
        path: "SPONSON_PLATFORMS.0.plan.lines.0.connection",
        message: expect.stringMatching(/nowhere is not in SPONSON_CONNECTIONS/),
      },
    ]);
  });

  it("control: a valid configuration has no problem, and the Worker reads it with its defaults", () => {
    const v = { ...vars([vercel(), netlify()]), ...secrets };
    const result = checkConfig(v, { secretsKnown: true });
    expect(result.problems.filter((p) => p.path.startsWith("SPONSON_PLATFORMS"))).toEqual([]);
    expect(result.vars.find((x) => x.name === "SPONSON_PLATFORMS")).toEqual({
      name: "SPONSON_PLATFORMS",
      set: true,
      valid: true,
    });
    expect(result.platforms).toEqual([
      {
        name: "web-vercel",
        platform: "vercel",
        target: "prj_abc123",
        repository: "acme/web",
        environment: "preview",
        url: "branch",
        missingSecrets: [],
        valid: true,
      },
      expect.objectContaining({ name: "web-netlify", platform: "netlify", environment: "staging" }),
    ]);
    expect(JSON.stringify(result)).not.toContain(TOKEN_VALUE);
    const [first, second] = configFromEnv(v).platforms;
    expect(first).toMatchObject({ url: "branch", targets: ["preview"] });
    expect(second).toMatchObject({ contexts: ["deploy-preview"] });
  });
});

describe("GET /v1/config/status and the dashboard show platform connections", () => {
  it("each with its project or site, repository, environment and missing secrets", async () => {
    const bindings = {
      ...env,
      SPONSON_PLATFORMS: JSON.stringify([vercel({ repository: "Codertocat/Hello-World" })]),
    };
    const res = await call(testApp(), "GET", "/v1/config/status", undefined, {}, bindings);
    const status = (await res.json()) as ConfigStatus;
    expect(status.platforms).toEqual([
      expect.objectContaining({
        name: "web-vercel",
        target: "prj_abc123",
        missingSecrets: ["VERCEL_WEBHOOK_SECRET_WEB", "VERCEL_TOKEN_WEB"],
        valid: false,
      }),
    ]);
    const html = String(
      ConfigPanel({ report: checkConfig({ ...vars([vercel()]), ...secrets }, { secretsKnown: true }) }),
    );
    expect(html).toContain('data-platform="web-vercel"');
    expect(html).toContain("prj_abc123");
  });
});
