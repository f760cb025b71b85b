/**
 * Environments bound to what GitHub signed (docs/security.md, "Environments bound to the ref"), and
 * events that run someone else's code on the default branch: each refusal is made before any lock,
 * leaves the tenant, the receipt and the lock as they were, and sends no provider request.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createDevApp } from "../../dev/entry/dev-app";
import { scopeLockKey } from "../../shared/lock-keys";
import { lockStub } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { testEnv } from "../helpers/connections";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import {
  branchClaims,
  type GithubTokenClaims,
  githubIssuer,
  pullRequestClaims,
  TEST_REPOSITORY,
  type TestGithubIssuer,
} from "../helpers/tokens";
import { problem, securityEnv, send } from "./harness";

let issuer: TestGithubIssuer;
let app: ReturnType<typeof createDevApp>;
const hosts: string[] = [];
beforeAll(async () => {
  issuer = await githubIssuer();
  app = createDevApp({
    auth: { fetch: issuer.fetch },
    engine: {
      wrapFetch: (inner) => (input, init) => {
        hosts.push(new URL(new Request(input, init).url).host);
        return inner(input, init);
      },
    },
  });
});

function bindings(repository: Record<string, unknown> = {}) {
  return testEnv(
    securityEnv({ SPONSON_REPOSITORIES: JSON.stringify([{ ...TEST_REPOSITORY, ...repository }]) }),
  );
}

async function attempt(claims: GithubTokenClaims, environment: string, scope: string, repository = {}) {
  const domain = freshAuth0Domain("refenv");
  await seedTenant(domain);
  hosts.length = 0;
  const token = await issuer.mint(claims);
  // The plan first: it registers the connection the bindings then carry.
  const plan = previewPlan(domain);
  const res = await send(app, "POST", `/v1/scopes/${environment}/${scope}/apply`, {
    token,
    env: bindings(repository),
    body: { plan },
  });
  return { res, domain };
}

async function expectRefused(
  claims: GithubTokenClaims,
  environment: string,
  scope: string,
  rule: string,
  repository = {},
) {
  const { res, domain } = await attempt(claims, environment, scope, repository);
  expect(res.status).toBe(403);
  const body = await problem(res);
  expect(body.rule).toBe(rule);
  expect(hosts).toEqual([]);
  expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  const key = scopeLockKey(TEST_REPOSITORY.id, environment, scope);
  expect((await lockStub(env, key).read({ key })).lastToken).toBe(0);
  const address = { repository: TEST_REPOSITORY, environment, scope };
  expect((await new R2ReceiptStore(env.RECEIPTS).read(address)).etag).toBeNull();
  return body;
}

let pr = 8_100_000 + Math.floor(Math.random() * 90_000) * 10;
const nextPr = () => ++pr;

describe("a pull request's job acts only where closed pull requests are destroyed", () => {
  it("a PR token applying in production is refused 403 github.ref-environments, naming SPONSON_ENVIRONMENTS", async () => {
    const n = nextPr();
    const body = await expectRefused(
      pullRequestClaims(n),
      "production",
      `pr-${n}`,
      "github.ref-environments",
    );
    expect(body.detail).toContain("SPONSON_ENVIRONMENTS");
    expect(body.detail).toContain("refEnvironments.pullRequest");
  });

  it("a PR token in a destroy environment (staging) but outside refEnvironments.pullRequest is refused", async () => {
    const n = nextPr();
    await expectRefused(pullRequestClaims(n), "staging", `pr-${n}`, "github.ref-environments", {
      refEnvironments: { pullRequest: ["preview"] },
    });
  });

  it("control: the same PR token in preview applies", async () => {
    const n = nextPr();
    const { res, domain } = await attempt(pullRequestClaims(n), "preview", `pr-${n}`);
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toContain(
      `https://pr-${n}.preview.example.com/callback`,
    );
  });
});

describe("branch and default-branch jobs act where the repository grants them", () => {
  it("a branch job outside refEnvironments.branch is refused 403 github.ref-environments", async () => {
    await expectRefused(
      branchClaims("feature-y"),
      "production",
      "branch-feature-y",
      "github.ref-environments",
      {
        refEnvironments: { branch: ["staging"] },
      },
    );
  });

  it("a default-branch job outside refEnvironments.defaultBranch is refused", async () => {
    await expectRefused(branchClaims("main"), "production", "main", "github.ref-environments", {
      refEnvironments: { defaultBranch: ["staging"] },
    });
  });

  it("an environment that requires a GitHub deployment environment refuses a job without one: 403 github.deployment-environment", async () => {
    const body = await expectRefused(
      branchClaims("main"),
      "production",
      "main",
      "github.deployment-environment",
      {
        deploymentEnvironments: { production: "production" },
      },
    );
    expect(body.detail).toContain("environment: production");
  });

  it("…and a job in another GitHub deployment environment", async () => {
    await expectRefused(
      { ...branchClaims("main"), environment: "staging" },
      "production",
      "main",
      "github.deployment-environment",
      { deploymentEnvironments: { production: "production" } },
    );
  });

  it("control: a default-branch job in the GitHub `production` deployment environment applies", async () => {
    const { res } = await attempt(
      { ...branchClaims("main"), environment: "production" },
      "production",
      "main",
      {
        deploymentEnvironments: { production: "production" },
      },
    );
    expect(res.status).toBe(200);
  });
});

describe("events that run someone else's code on the default branch never act on main or a branch", () => {
  it.each([
    "workflow_run",
    "issue_comment",
    "issues",
    "check_run",
    "pull_request_target",
    "discussion_comment",
  ])("a %s job on the default branch is refused main: 403 github.ref", async (event) => {
    await expectRefused({ ...branchClaims("main"), event_name: event }, "preview", "main", "github.ref");
  });

  it("a workflow_run job on a branch is refused that branch's scope", async () => {
    await expectRefused(
      { ...branchClaims("feature-z"), event_name: "workflow_run" },
      "preview",
      "branch-feature-z",
      "github.ref",
    );
  });
});

describe("a non-default branch's job acts only where refEnvironments.branch grants it (fails closed)", () => {
  it.each(["push", "workflow_dispatch", "create", "merge_group", "deployment"])(
    "a %s job on a feature branch is refused production with nothing configured, naming refEnvironments.branch",
    async (event) => {
      const body = await expectRefused(
        { ...branchClaims("feature-p"), event_name: event },
        "production",
        "branch-feature-p",
        "github.ref-environments",
      );
      expect(body.detail).toContain("refEnvironments.branch");
    },
  );

  it("a repository's `environments` list bounds a branch's job but does not grant it", async () => {
    await expectRefused(branchClaims("feature-q"), "preview", "branch-feature-q", "github.ref-environments", {
      environments: ["preview", "production"],
    });
  });

  it("control: a branch granted preview by refEnvironments.branch applies there", async () => {
    const { res, domain } = await attempt(branchClaims("feature-r"), "preview", "branch-feature-r", {
      refEnvironments: { branch: ["preview"] },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks.length).toBeGreaterThan(0);
  });

  it("control: the default branch (`defaultBranch: trunk`) still acts in production with nothing configured", async () => {
    const { res } = await attempt(branchClaims("trunk"), "production", "main", { defaultBranch: "trunk" });
    expect(res.status, await res.clone().text()).toBe(200);
  });
});

describe("an environment bound to a workflow file (jobWorkflowRef)", () => {
  const DEPLOY = "acme/web/.github/workflows/deploy.yml@refs/heads/main";
  // An environment of this file's own, so its lock was never taken by another test.
  const guarded = `wf-${crypto.randomUUID().slice(0, 8)}`;
  const bound = { jobWorkflowRef: { [guarded]: "acme/web/.github/workflows/deploy.yml@*" } };

  it("a default-branch job from another workflow file is refused 403 github.job-workflow-ref", async () => {
    const body = await expectRefused(
      { ...branchClaims("main"), job_workflow_ref: "acme/web/.github/workflows/lint.yml@refs/heads/main" },
      guarded,
      "main",
      "github.job-workflow-ref",
      bound,
    );
    expect(body.detail).toContain("jobWorkflowRef");
  });

  it("…and a job whose token carries no job_workflow_ref", async () => {
    const { job_workflow_ref: _none, ...claims } = branchClaims("main");
    await expectRefused(claims as GithubTokenClaims, guarded, "main", "github.job-workflow-ref", bound);
  });

  it("control: the deploy workflow's job applies in production", async () => {
    const { res } = await attempt(
      { ...branchClaims("main"), job_workflow_ref: DEPLOY },
      "production",
      "main",
      { jobWorkflowRef: { production: "acme/web/.github/workflows/deploy.yml@*" } },
    );
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it("control: an environment without a pattern takes any workflow", async () => {
    const { res } = await attempt(
      { ...branchClaims("main"), job_workflow_ref: "acme/web/.github/workflows/lint.yml@refs/heads/main" },
      "staging",
      "main",
      bound,
    );
    expect(res.status, await res.clone().text()).toBe(200);
  });
});
