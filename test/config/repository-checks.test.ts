/**
 * The config report's checks of SPONSON_REPOSITORIES (docs/deploy.md, "Check the configuration";
 * docs/configuration.md, "Repositories"): a repository whose `webhookSecret` names a Worker secret that
 * is not set is a problem naming the repository and the secret (never a value); an environment
 * `refEnvironments.pullRequest` grants where closed pull requests are never destroyed (it is not in
 * SPONSON_ENVIRONMENTS) is a warning naming the repository and the environment.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ConfigStatus } from "../../shared/schemas/config-status";
import { checkConfig } from "../../workers/config/config-report";
import { ConfigPanel } from "../../workers/dashboard/config-panel";
import { call, testApp } from "../helpers/app";
import { bearer } from "../helpers/tokens";

const SECRET_VALUE = "acme-web-webhook-secret-value-0123456789";

function repository(extra: Record<string, unknown> = {}) {
  return { name: "acme/web", id: 4242, ...extra };
}

function report(vars: Record<string, unknown>, secretsKnown = true) {
  return checkConfig(vars, { secretsKnown });
}

const repositories = (...repos: object[]) => ({ SPONSON_REPOSITORIES: JSON.stringify(repos) });

describe("config check: a repository's webhookSecret", () => {
  it("names the repository and the secret's name when the secret is not set", () => {
    const { problems, valid } = report(
      repositories(repository({ webhookSecret: "WEBHOOK_SECRET_ACME_WEB" })),
    );
    expect(valid).toBe(false);
    expect(problems.filter((p) => p.path.startsWith("SPONSON_REPOSITORIES"))).toEqual([
      {
        path: "SPONSON_REPOSITORIES.0.webhookSecret",
        message: expect.stringMatching(/acme\/web.*WEBHOOK_SECRET_ACME_WEB is not set/),
      },
    ]);
  });

  it("control: set, no problem, and the report never holds its value", () => {
    const result = report({
      ...repositories(repository({ webhookSecret: "WEBHOOK_SECRET_ACME_WEB" })),
      WEBHOOK_SECRET_ACME_WEB: SECRET_VALUE,
    });
    expect(result.problems.filter((p) => p.path.startsWith("SPONSON_REPOSITORIES"))).toEqual([]);
    expect(JSON.stringify(result)).not.toContain(SECRET_VALUE);
  });

  it("without the secrets in sight (config check with no env file), nothing is said about it", () => {
    const { problems } = report(
      repositories(repository({ webhookSecret: "WEBHOOK_SECRET_ACME_WEB" })),
      false,
    );
    expect(problems.filter((p) => p.path.startsWith("SPONSON_REPOSITORIES"))).toEqual([]);
  });
});

describe("config check: pull-request environments never destroyed on close", () => {
  it("warns for each environment pull requests may act in that a close never destroys; still valid", () => {
    const { warnings, problems } = report({
      ...repositories(repository({ refEnvironments: { pullRequest: ["preview", "staging", "qa"] } })),
      SPONSON_ENVIRONMENTS: JSON.stringify(["preview", "qa"]),
    });
    expect(problems.filter((p) => p.path.startsWith("SPONSON_REPOSITORIES"))).toEqual([]);
    expect(warnings).toEqual([
      {
        path: "SPONSON_REPOSITORIES.0.refEnvironments.pullRequest",
        message: expect.stringMatching(/acme\/web.*staging.*never destroyed/),
      },
    ]);
  });

  it("an environment given with its settings ({ name, staleAfterDays }) counts by its name: no warning", () => {
    const { warnings, problems } = report({
      ...repositories(repository({ refEnvironments: { pullRequest: ["preview"] } })),
      SPONSON_ENVIRONMENTS: JSON.stringify([{ name: "preview", staleAfterDays: 14 }]),
    });
    expect(problems.filter((p) => /^SPONSON_(ENVIRONMENTS|REPOSITORIES)/.test(p.path))).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it("SPONSON_ENVIRONMENTS unset means preview: a grant of another environment is warned", () => {
    const { warnings } = report(repositories(repository({ refEnvironments: { pullRequest: ["qa"] } })));
    expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(/acme\/web.*\bqa\b/)]);
  });

  it("controls: the default grant, and a grant the repository's environments bound away, warn nothing", () => {
    expect(report(repositories(repository())).warnings).toEqual([]);
    const bounded = report(
      repositories(
        repository({ environments: ["preview"], refEnvironments: { pullRequest: ["preview", "staging"] } }),
      ),
    );
    expect(bounded.warnings).toEqual([]);
  });

  it("GET /v1/config/status answers the same warnings", async () => {
    const bindings = {
      ...env,
      // The test deployment destroys closed pull requests in preview and staging.
      ...repositories(repository({ refEnvironments: { pullRequest: ["preview", "qa"] } })),
    } as typeof env;
    const res = await call(app(), "GET", "/v1/config/status", undefined, await bearer("admin"), bindings);
    expect(res.status).toBe(200);
    const body = (await res.json()) as ConfigStatus;
    // The repositories' warnings (connections other tests registered in this runtime warn too).
    expect(body.warnings.filter((w) => w.path.startsWith("SPONSON_REPOSITORIES"))).toEqual([
      {
        path: "SPONSON_REPOSITORIES.0.refEnvironments.pullRequest",
        message: expect.stringMatching(/acme\/web.*\bqa\b.*never destroyed/),
      },
    ]);
  });
});

describe("the dashboard's configuration panel", () => {
  it("lists each warning with its path, the report still valid", () => {
    const result = report(repositories(repository({ refEnvironments: { pullRequest: ["qa"] } })));
    const html = String(ConfigPanel({ report: result }));
    expect(html).toContain('data-config-warning="SPONSON_REPOSITORIES.0.refEnvironments.pullRequest"');
    expect(html).toMatch(/acme\/web: pull requests may act in environment qa/);
  });
});

function app() {
  return testApp();
}
