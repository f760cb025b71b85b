/**
 * How the CLI prints a LIST_FULL refusal (docs/design.md, "Lists at their cap"): after the outcome,
 * who holds the list (each scope of the caller's repository with its pull request, last run and
 * staleness), other repositories' and foreign entries counted, and the commands that free room.
 */
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../cli/client";
import { runText } from "../../cli/render";

const AT = Date.UTC(2026, 10, 20, 9, 30, 0);
const listFull = {
  code: "LIST_FULL",
  message: "auth0:acme:client:app: auth0.webOrigin's list holds 5 of at most 5 entries; …",
  detail: {
    list: { object: "auth0:acme:client:app", op: "auth0.webOrigin" },
    cap: 5,
    entries: 5,
    after: 6,
    scopes: [
      { scope: "pr-3", environment: "preview", pullRequest: 3, lastRunAt: AT, entries: 2, stale: "closed" },
      { scope: "pr-8", environment: "preview", pullRequest: 8, lastRunAt: null, entries: 1, stale: null },
    ],
    otherRepositories: { scopes: 1, entries: 1, stale: null },
    repositories: [
      { name: "acme/web", scopes: 2, entries: 3 },
      { name: null, scopes: 1, entries: 1 },
    ],
    foreign: 1,
    unowned: 0,
    freeRoom: ["sponson destroy --env preview --scope pr-3"],
  },
};
const result: RunResult = {
  run: {
    id: "run-9",
    environment: "preview",
    scope: "pr-9",
    action: "apply",
    status: "failed",
    startedAt: 0,
    finishedAt: 500,
    error: listFull,
  },
  lines: [],
  drift: [],
  warnings: [],
};

describe("a LIST_FULL refusal as the CLI prints it", () => {
  it("names the list's owners, their staleness and the commands that free room", () => {
    const text = runText(result).join("\n");
    expect(text).toContain("auth0.webOrigin on auth0:acme:client:app: 5 of at most 5 entries");
    expect(text).toMatch(/pr-3\s+#3\s+2026-11-20T09:30:00Z\s+2\s+closed/);
    expect(text).toMatch(/pr-8\s+#8\s+-\s+1\s+live/);
    // Their staleness is not read by the service (null): nothing is said about it.
    expect(text).toMatch(/other repositories: 1 scope, 1 entry$/m);
    expect(text).toContain("shares: acme/web 3 entries (2 scopes); another repository 1 entry (1 scope)");
    expect(text).toContain("foreign (never removed by a scope): 1");
    expect(text).toContain("to free room: sponson destroy --env preview --scope pr-3");
  });

  it("an older service's count of other repositories' stale scopes is still printed", () => {
    const older = {
      ...listFull,
      detail: { ...listFull.detail, otherRepositories: { scopes: 2, entries: 3, stale: 1 } },
    };
    const text = runText({ ...result, run: { ...result.run, error: older } }).join("\n");
    expect(text).toContain("other repositories: 2 scopes, 3 entries (1 stale)");
    expect(text).toContain("to free room: sponson destroy --env preview --scope pr-3");
  });

  it("an S3 bucket: the cap's figures are in rules, the owners' in origins, each said", () => {
    const s3 = {
      ...listFull,
      detail: {
        ...listFull.detail,
        list: { object: "s3:eu-west-1:assets:cors", op: "s3.corsOrigin" },
        cap: 100,
        entries: 100,
        after: 101,
        counts: { cap: "CORS rules of the bucket", owners: "origins" },
      },
    };
    const text = runText({ ...result, run: { ...result.run, error: s3 } }).join("\n");
    expect(text).toContain(
      "s3.corsOrigin on s3:eu-west-1:assets:cors: 100 of at most 100 CORS rules of the bucket",
    );
    expect(text).toMatch(/scope\s+pull\s+last run\s+origins\s+stale/);
  });

  it("one of an op's several lists is named: r2.corsOrigin (rule B)", () => {
    const r2 = {
      ...listFull,
      detail: {
        ...listFull.detail,
        list: { object: "r2:acct:assets:cors", op: "r2.corsOrigin", name: "rule B" },
      },
    };
    const text = runText({ ...result, run: { ...result.run, error: r2 } }).join("\n");
    expect(text).toContain("r2.corsOrigin (rule B) on r2:acct:assets:cors: 5 of at most 5 entries");
  });

  it("prints nothing more for another error, or a LIST_FULL without owners", () => {
    const bare = { ...listFull, detail: { list: listFull.detail.list, cap: 5, entries: 5, after: 6 } };
    const text = runText({ ...result, run: { ...result.run, error: bare } });
    expect(text.join("\n")).not.toContain("to free room");
    expect(text).toHaveLength(2);
  });
});
