/**
 * The config report refuses a shared webhook secret once two repositories are configured
 * (docs/configuration.md, "Repositories"; docs/security.md, "Webhook secrets"): each repository
 * without its own `webhookSecret` is a problem at its path, whether or not the secrets can be seen
 * (it is the configuration's shape, not a missing value). GITHUB_WEBHOOK_SECRET is then needed by no
 * configured repository, and an unset one is no longer a problem.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ConfigStatus } from "../../shared/schemas/config-status";
import { checkConfig } from "../../workers/config/config-report";
import { call, testApp } from "../helpers/app";
import { bearer } from "../helpers/tokens";

const WEB = { name: "acme/web", id: 4242 };
const API = { name: "acme/api", id: 4343 };
const OWN = {
  WEBHOOK_SECRET_ACME_WEB: "acme-web-webhook-secret-0123456789",
  WEBHOOK_SECRET_ACME_API: "acme-api-webhook-secret-0123456789",
};

const repositories = (...repos: object[]) => ({ SPONSON_REPOSITORIES: JSON.stringify(repos) });
const sharing = (problems: { path: string; message: string }[]) =>
  problems.filter((p) => /^SPONSON_REPOSITORIES\.\d+\.webhookSecret$/.test(p.path));

describe("config check: the shared webhook secret with several repositories", () => {
  it("two repositories, one without its own secret: a problem naming it, and why", () => {
    for (const secretsKnown of [true, false]) {
      const report = checkConfig(
        { ...repositories({ ...WEB, webhookSecret: "WEBHOOK_SECRET_ACME_WEB" }, API), ...OWN },
        { secretsKnown },
      );
      expect(report.valid).toBe(false);
      expect(sharing(report.problems)).toEqual([
        {
          path: "SPONSON_REPOSITORIES.1.webhookSecret",
          message: expect.stringMatching(/acme\/api.*GITHUB_WEBHOOK_SECRET.*every repository/),
        },
      ]);
    }
  });

  it("two repositories without their own: one problem each", () => {
    const { problems } = checkConfig(repositories(WEB, API), { secretsKnown: false });
    expect(sharing(problems).map((p) => p.path)).toEqual([
      "SPONSON_REPOSITORIES.0.webhookSecret",
      "SPONSON_REPOSITORIES.1.webhookSecret",
    ]);
  });

  it("control: one repository signs with the shared secret, no problem", () => {
    const report = checkConfig(
      { ...repositories(WEB), GITHUB_WEBHOOK_SECRET: "shared" },
      { secretsKnown: true },
    );
    expect(sharing(report.problems)).toEqual([]);
  });

  it("control: each its own, no problem, and GITHUB_WEBHOOK_SECRET unset is not one either", () => {
    const report = checkConfig(
      {
        ...repositories(
          { ...WEB, webhookSecret: "WEBHOOK_SECRET_ACME_WEB" },
          { ...API, webhookSecret: "WEBHOOK_SECRET_ACME_API" },
        ),
        ...OWN,
      },
      { secretsKnown: true },
    );
    expect(sharing(report.problems)).toEqual([]);
    expect(report.problems.map((p) => p.path)).not.toContain("GITHUB_WEBHOOK_SECRET");
  });

  it("GET /v1/config/status answers the same problem", async () => {
    const bindings = { ...env, ...repositories(WEB, API) } as typeof env;
    const res = await call(testApp(), "GET", "/v1/config/status", undefined, await bearer("admin"), bindings);
    expect(res.status).toBe(200);
    const body = (await res.json()) as ConfigStatus;
    expect(body.valid).toBe(false);
    expect(sharing(body.problems).map((p) => p.path)).toEqual([
      "SPONSON_REPOSITORIES.0.webhookSecret",
      "SPONSON_REPOSITORIES.1.webhookSecret",
    ]);
  });
});
