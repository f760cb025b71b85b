/**
 * What the CLI reads from a GitHub Actions job to default its scope and commit: the pushed branch
 * is scope `main` when it is the repository's default branch (from the event payload, so `master`
 * and `trunk` repositories get `main` too), and `{sha}` is the pull request's head commit.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scopeFromGithub, shaOf } from "../../cli/context";

const dir = mkdtempSync(join(tmpdir(), "sponson-event-"));
function eventFile(name: string, payload: unknown): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(payload));
  return path;
}

const HEAD = "1111111111111111111111111111111111111111";
const MERGE = "2222222222222222222222222222222222222222";

describe("the scope of a GitHub Actions job", () => {
  it("a push to master, the repository's default branch, is scope main", () => {
    const path = eventFile("push-master", {
      ref: "refs/heads/master",
      repository: { default_branch: "master" },
    });
    expect(
      scopeFromGithub({
        GITHUB_EVENT_NAME: "push",
        GITHUB_REF: "refs/heads/master",
        GITHUB_EVENT_PATH: path,
      }),
    ).toBe("main");
  });

  it("a push to main where master is the default branch is branch-main", () => {
    const path = eventFile("push-main", { repository: { default_branch: "master" } });
    expect(
      scopeFromGithub({ GITHUB_EVENT_NAME: "push", GITHUB_REF: "refs/heads/main", GITHUB_EVENT_PATH: path }),
    ).toBe("branch-main");
  });

  it("without an event payload, main is the default branch", () => {
    expect(scopeFromGithub({ GITHUB_REF: "refs/heads/main" })).toBe("main");
    expect(scopeFromGithub({ GITHUB_REF: "refs/heads/feature/x" })).toBe("branch-feature/x");
  });

  it("a pull request's scope comes from the payload's number", () => {
    const path = eventFile("pr", { pull_request: { number: 12, head: { sha: HEAD } } });
    expect(
      scopeFromGithub({
        GITHUB_EVENT_NAME: "pull_request_target",
        GITHUB_REF: "refs/heads/main",
        GITHUB_EVENT_PATH: path,
      }),
    ).toBe("pr-12");
  });
});

describe("the commit of a GitHub Actions job", () => {
  it("a pull request's head commit, not the test-merge commit GITHUB_SHA names", () => {
    const path = eventFile("pr-sha", { pull_request: { number: 3, head: { sha: HEAD } } });
    expect(shaOf({ GITHUB_EVENT_PATH: path, GITHUB_SHA: MERGE })).toBe(HEAD);
  });

  it("GITHUB_SHA on a push; SPONSON_SHA wins; nothing outside a job", () => {
    expect(shaOf({ GITHUB_SHA: MERGE })).toBe(MERGE);
    expect(shaOf({ GITHUB_SHA: MERGE, SPONSON_SHA: HEAD })).toBe(HEAD);
    expect(shaOf({})).toBeUndefined();
  });
});
