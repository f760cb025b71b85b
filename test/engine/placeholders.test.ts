/**
 * Plan placeholders (docs/adapters.md, "Plans"): `{branch}` and `{branchSlug}` are the branch
 * as a DNS label (lowercase `a-z 0-9 -`, at most 63 characters), `{sha}` / `{shortSha}` the commit
 * the request names, and on scope `main` the branch is the repository's configured default branch.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { placeholderValues } from "../../shared/placeholders";
import type { RunResult } from "../../shared/schemas/run";
import { call, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { auth0Plan, seedTenant } from "../helpers/plans";

const app = testApp();

async function previewKey(scope: string, url: string, extra: object = {}, bindings = env): Promise<string> {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  const plan = auth0Plan(domain, [{ id: "cb", op: "auth0.callbackUrl", url }]);
  const res = await call(
    app,
    "POST",
    `/v1/scopes/preview/${encodeURIComponent(scope)}/preview`,
    { plan, ...extra },
    {},
    bindings,
  );
  const body = (await res.json()) as RunResult;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.lines[0]?.key as string;
}

describe("branch placeholders", () => {
  it("{branch} is a DNS label: lowercase, each run of other characters one `-`, no edge dashes", async () => {
    expect(await previewKey("branch-Feature/Login_Page", "https://{branch}.preview.example.com/cb")).toBe(
      "https://feature-login-page.preview.example.com/cb",
    );
  });

  it("{branchSlug} is the same label, and a long branch is cut to 63 characters", async () => {
    const long = `feat/${"a".repeat(70)}`;
    const key = await previewKey(`branch-${long}`, "https://{branchSlug}.preview.example.com/cb");
    expect(key).toBe(`https://feat-${"a".repeat(58)}.preview.example.com/cb`);
  });

  it("on scope main, {branch} is the repository's default branch (master here)", async () => {
    const bindings = {
      ...env,
      SPONSON_REPOSITORIES: JSON.stringify([
        { name: "Codertocat/Hello-World", id: 186853002, defaultBranch: "master" },
      ]),
    };
    expect(await previewKey("main", "https://{branch}.preview.example.com/cb", {}, bindings)).toBe(
      "https://master.preview.example.com/cb",
    );
  });
});

describe("commit placeholders", () => {
  const sha = "0123456789abcdef0123456789abcdef01234567";

  it("{sha} and {shortSha} come from the request's sha", async () => {
    expect(await previewKey("pr-1", "https://pr-{pr}.preview.example.com/{sha}/{shortSha}", { sha })).toBe(
      `https://pr-1.preview.example.com/${sha}/0123456`,
    );
  });

  it("{sha} without a sha in the request is refused before anything runs", async () => {
    const domain = freshAuth0Domain();
    const plan = auth0Plan(domain, [{ id: "cb", op: "auth0.callbackUrl", url: "https://{sha}.example.com" }]);
    const res = await call(app, "POST", "/v1/scopes/preview/pr-1/preview", { plan });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "VALIDATION" });
  });
});

describe("the pull request's head branch", () => {
  it("on a pr-<n> scope, {branch} and {branchSlug} are the head branch given as headBranch", () => {
    const values = placeholderValues({
      environment: "preview",
      scope: "pr-9",
      headBranch: "Feature/Login_Page",
    });
    expect([values.branch, values.branchSlug, values.pr]).toEqual([
      "feature-login-page",
      "feature-login-page",
      "9",
    ]);
  });

  it("without it, a pr-<n> scope has no branch; on other scopes it is ignored", () => {
    expect(placeholderValues({ environment: "preview", scope: "pr-9" }).branch).toBeUndefined();
    expect(placeholderValues({ environment: "preview", scope: "branch-x", headBranch: "y" }).branch).toBe(
      "x",
    );
    expect(placeholderValues({ environment: "preview", scope: "main", headBranch: "y" }).branch).toBe("main");
  });
});
