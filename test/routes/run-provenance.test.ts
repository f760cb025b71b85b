/**
 * Every run says where it comes from (docs/design.md, "Provenance"), and a lock answer says who holds
 * the lock, until when, and what to do (docs/design.md, "Lock answers"): over HTTP, with a service
 * token declaring its provenance and with a GitHub job whose claims are the only source.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../shared/schemas/run";
import { lockTarget } from "../../workers/locks/lock-target";
import { securityEnv } from "../auth/harness";
import { call, type TestApp, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { auth0Plan, previewPlan, seedTenant, TEST_M2M } from "../helpers/plans";
import { githubIssuer, pullRequestClaims, TEST_REPOSITORY, type TestGithubIssuer } from "../helpers/tokens";

const app = testApp();
const SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e";
const declared = {
  actor: "octocat",
  pullRequest: 9,
  headBranch: "feat-x",
  sha: SHA,
  ref: "refs/pull/9/merge",
  runUrl: "https://github.com/Codertocat/Hello-World/actions/runs/77/attempts/2",
};

describe("a service token's run records the provenance it declares", () => {
  it("apply keeps it on the run's answer and in the receipt, marked declared", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: previewPlan(domain),
      provenance: declared,
    });
    expect(res.status).toBe(200);
    const result = (await res.json()) as RunResult;
    const expected = {
      ...declared,
      repository: "Codertocat/Hello-World",
      event: null,
      workflow: null,
      declared: true,
    };
    expect(result.run.provenance).toEqual(expected);
    expect((await receipt("preview", scope)).runs[0]).toMatchObject({ provenance: expected });
  });

  it.each([
    ["an http:// run URL", { runUrl: "http://ci.example.com/run/1" }],
    ["an unknown field", { token: "ghp_secret" }],
    ["an actor longer than 200 characters", { actor: "a".repeat(201) }],
    // A line break would let a declared value start a GitHub workflow command (`::add-mask::…`) in
    // the CI log of every run that is told who holds its lock.
    ["a line break in the actor", { actor: "octocat\n::stop-commands::x" }],
    ["a control character in the head branch", { headBranch: "feat\u001b[2Jx" }],
  ])("a provenance with %s is refused 400 VALIDATION", async (_name, provenance) => {
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, {
      plan: { version: 2, lines: [] },
      provenance,
    });
    expect(res.status).toBe(400);
  });
});

describe("a declared provenance never carries a secret", () => {
  it("one that contains a configured secret is refused 400 before anything is written or recorded", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: previewPlan(domain),
      provenance: { actor: `x-${TEST_M2M.clientSecret}` },
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toContain(TEST_M2M.clientSecret);
    expect((await receipt("preview", scope)).runs).toEqual([]);
  });
});

describe("LOCK_HELD names the holder as a person would", () => {
  it("409 with detail.holder, a Retry-After until the lease ends, and the next step", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    // The first run holds the scope lock as the engine would take it, provenance and all.
    const held = await lockTarget(env, `scope:186853002/preview/${scope}`).acquire({
      holder: "run-pr9",
      ttlMs: 60_000,
      origin: {
        repositoryId: 186853002,
        repository: "Codertocat/Hello-World",
        scope: `preview/${scope}`,
        provenance: {
          ...declared,
          repository: "Codertocat/Hello-World",
          event: null,
          workflow: null,
          declared: true,
        },
      },
    });
    expect(held.ok).toBe(true);
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, { plan: previewPlan(domain) });
    expect(res.status).toBe(409);
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await res.json()) as { code: string; detail: string; holder: unknown; lock: string };
    expect(body.code).toBe("LOCK_HELD");
    expect(body.holder).toMatchObject({
      run: "run-pr9",
      repository: "Codertocat/Hello-World",
      scope: `preview/${scope}`,
      pullRequest: 9,
      actor: "octocat",
      runUrl: declared.runUrl,
      declared: true,
    });
    expect(body.detail).toContain("held by pull #9 (octocat, declared)");
    expect(body.detail).toContain(`sponson unlock ${body.lock} --reason`);
  });
});

describe("a GitHub job's provenance comes from its verified claims only", () => {
  let issuer: TestGithubIssuer;
  let github: TestApp;
  beforeAll(async () => {
    issuer = await githubIssuer();
    github = testApp({ auth: { fetch: issuer.fetch } });
  });

  it("{branchSlug} comes from the verified head_ref claim, never from the body", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const token = await issuer.mint(pullRequestClaims(13));
    const res = await call(
      github,
      "POST",
      "/v1/scopes/preview/pr-13/preview",
      {
        plan: auth0Plan(domain, [
          { id: "callback", op: "auth0.callbackUrl", url: "https://{branchSlug}.preview.example.com/cb" },
        ]),
        provenance: { headBranch: "evil" },
      },
      { authorization: `Bearer ${token}` },
      securityEnv(),
    );
    expect(res.status).toBe(200);
    const result = (await res.json()) as RunResult;
    expect(result.lines.map((l) => l.key)).toEqual(["https://feature-13.preview.example.com/cb"]);
  });

  it("the body's provenance is ignored; the claims give actor, sha, head branch, pull request and run URL", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const token = await issuer.mint({ ...pullRequestClaims(12), run_attempt: "3" });
    const res = await call(
      github,
      "POST",
      "/v1/scopes/preview/pr-12/preview",
      { plan: previewPlan(domain), provenance: { actor: "someone-else", pullRequest: 99 } },
      { authorization: `Bearer ${token}` },
      securityEnv(),
    );
    expect(res.status).toBe(200);
    const result = (await res.json()) as RunResult;
    expect(result.lines.map((l) => l.key)).toContain("https://pr-12.preview.example.com/callback");
    expect(result.run.provenance).toEqual({
      repository: TEST_REPOSITORY.name,
      event: "pull_request",
      ref: "refs/pull/12/merge",
      pullRequest: 12,
      headBranch: "feature-12",
      sha: SHA,
      actor: "octocat",
      workflow: "preview",
      runUrl: `https://github.com/${TEST_REPOSITORY.name}/actions/runs/9001/attempts/3`,
      declared: false,
    });
  });
});

describe("{branch} and {branchSlug} on a pull request's scope", () => {
  const branchPlan = (domain: string) =>
    auth0Plan(domain, [
      { id: "callback", op: "auth0.callbackUrl", url: "https://app-git-{branchSlug}.preview.example.com/cb" },
      { id: "logout", op: "auth0.logoutUrl", url: "https://{branch}.preview.example.com/" },
    ]);

  it("come from a service token's declared head branch", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, {
      plan: branchPlan(domain),
      provenance: { headBranch: "Feature/Login_Page" },
    });
    expect(res.status).toBe(200);
    const result = (await res.json()) as RunResult;
    expect(result.lines.map((l) => l.key)).toEqual([
      "https://app-git-feature-login-page.preview.example.com/cb",
      "https://feature-login-page.preview.example.com/",
    ]);
  });

  it("control: without a head branch they have no value on a pr-<n> scope (400, nothing written)", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, {
      plan: branchPlan(domain),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("{branchSlug} has no value in this scope");
  });
});
