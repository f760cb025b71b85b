/**
 * docs/design.md, "Security model" (scope from the signed ref): a GitHub job acts only on the scope its
 * signed ref names, and only for a configured repository matched by id and name.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { branchClaims, pullRequestClaims, TEST_REPOSITORY } from "../helpers/tokens";
import { type Harness, harness, problem, securityEnv, send } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await harness();
});

const emptyPlan = { plan: { version: 2, lines: [] } };

describe("a GitHub Actions job acting on scopes", () => {
  it("a pull request's job may preview its own scope: the request reaches the handler as that job", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12));
    const res = await send(h.probe, "POST", "/v1/scopes/preview/pr-12/apply", { token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { actor: string; caller: Record<string, unknown> };
    expect(body.actor).toBe("repo:acme/web:pull_request");
    expect(body.caller).toMatchObject({
      kind: "github",
      role: "ci",
      repository: "acme/web",
      scopes: ["pr-12"],
    });
  });

  it("the job of pull request 13 (a fork) may not touch pr-12", async () => {
    const claims = { ...pullRequestClaims(13), head_ref: "patch-1", repository_owner: "acme" };
    const token = await h.issuer.mint(claims);
    const res = await send(h.app, "POST", "/v1/scopes/preview/pr-12/apply", { token, body: emptyPlan });
    expect(res.status).toBe(403);
    const body = await problem(res);
    expect(body.code).toBe("FORBIDDEN");
    expect(body.rule).toBe("github.ref");
    expect(body.detail).toContain("refs/pull/12/merge");
  });

  it("a pull request's job may not destroy another pull request's scope", async () => {
    const token = await h.issuer.mint({ ...pullRequestClaims(12), ref: "refs/pull/12/head" });
    const res = await send(h.app, "POST", "/v1/scopes/preview/pr-120/destroy", { token, body: {} });
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("github.ref");
  });

  it("a branch's push job may not act on main", async () => {
    const token = await h.issuer.mint(branchClaims("feature-x"));
    const res = await send(h.app, "POST", "/v1/scopes/preview/main/apply", { token, body: emptyPlan });
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("github.ref");
  });

  it("a branch's push job may act on its own branch scope where refEnvironments.branch grants it", async () => {
    const token = await h.issuer.mint(branchClaims("feature-x"));
    const granted = securityEnv({
      SPONSON_REPOSITORIES: JSON.stringify([
        { ...TEST_REPOSITORY, refEnvironments: { branch: ["preview"] } },
      ]),
    });
    const res = await send(h.probe, "POST", "/v1/scopes/preview/branch-feature-x/apply", {
      token,
      env: granted,
    });
    expect(res.status).toBe(200);
  });

  it("a push job on the default branch may act on main", async () => {
    const token = await h.issuer.mint(branchClaims("main"));
    const res = await send(h.probe, "POST", "/v1/scopes/preview/main/apply", { token });
    expect(res.status).toBe(200);
  });

  it("a pull_request_target job, which carries the base branch's ref, may not act on main", async () => {
    const token = await h.issuer.mint({ ...branchClaims("main"), event_name: "pull_request_target" });
    const res = await send(h.app, "POST", "/v1/scopes/preview/main/apply", { token, body: emptyPlan });
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("github.ref");
  });

  it("a repository whose name is configured but whose id differs (re-created under the same name) is refused", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12, { name: TEST_REPOSITORY.name, id: 999 }));
    const res = await send(h.app, "GET", "/v1/locks", { token });
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("github.repository-id");
  });

  it("a repository whose id is configured but whose name differs (renamed or transferred) is refused", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12, { name: "mallory/web", id: TEST_REPOSITORY.id }));
    const res = await send(h.app, "GET", "/v1/locks", { token });
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("github.repository-name");
  });

  it("a repository that is not configured at all is refused", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12, { name: "other/repo", id: 1 }));
    const res = await send(h.app, "GET", "/v1/locks", { token });
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("github.repository");
  });

  it("a repository configured for preview only may not act in production", async () => {
    const env = securityEnv({
      SPONSON_REPOSITORIES: JSON.stringify([{ ...TEST_REPOSITORY, environments: ["preview"] }]),
    });
    const token = await h.issuer.mint(pullRequestClaims(12));
    const res = await send(h.app, "POST", "/v1/scopes/production/pr-12/apply", {
      token,
      env,
      body: emptyPlan,
    });
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("github.environments");
  });

  it("a GitHub job may read locks (ci reads too)", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12));
    const res = await send(h.app, "GET", "/v1/locks", { token });
    expect(res.status).toBe(200);
  });
});
