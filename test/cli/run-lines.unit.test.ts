/**
 * What a CI log shows of a run (cli/render.ts): one lock conflict is said once per lock, not once
 * per plan line and again in the outcome; a queued run prints a waiting line naming the lock, its
 * holder, its place and the time waited; the locks table names the holder as a person would; the
 * CLI declares the job's provenance from GITHUB_* (cli/provenance.ts).
 */
import { describe, expect, it } from "vitest";
import type { LockState, RunEvent, RunResult } from "../../cli/client";
import { provenanceFromEnv } from "../../cli/provenance";
import { locksText, lockText, runPrinter, runText } from "../../cli/render";

const LOCK = "_locks/4f2a";
const IDENTITY = "auth0:acme.us.auth0.com:client:preview-app";
const holder = {
  run: "run-pr9",
  repository: "acme/web",
  scope: "preview/pr-9",
  pullRequest: 9,
  actor: "octocat",
  runUrl: "https://github.com/acme/web/actions/runs/77/attempts/1",
  declared: false,
  since: Date.UTC(2026, 11, 1, 20, 0, 0),
  expiresAt: Date.UTC(2026, 11, 1, 20, 1, 0),
};
const lockHeld = {
  code: "LOCK_HELD",
  message: `${IDENTITY} is held by pull #9 (octocat) since …, until …. Wait for it with \`--wait\`, or an admin can release it: \`sponson unlock ${LOCK} --reason …\``,
  detail: { lock: LOCK, holder, parent: IDENTITY },
};
const line = (id: string) => ({
  id,
  op: "auth0.callbackUrl",
  key: `https://pr-1.example.com/${id}`,
  diff: "create" as const,
  result: "failed" as const,
  parent: IDENTITY,
  error: lockHeld,
});
const result: RunResult = {
  run: {
    id: "run-pr1",
    environment: "preview",
    scope: "pr-1",
    action: "apply",
    status: "failed",
    startedAt: 0,
    finishedAt: 1200,
    error: lockHeld,
  },
  lines: [line("callback"), line("logout"), line("origin")],
  drift: [],
  warnings: [],
};

const times = (text: string, part: string) => text.split(part).length - 1;

describe("a lock conflict in a run's lines", () => {
  it("is printed once for a three-line plan, streamed: not once per line and again in the outcome", () => {
    const print = runPrinter();
    const events: RunEvent[] = [
      { type: "run", run: { id: "run-pr1", environment: "preview", scope: "pr-1", action: "apply" } },
      ...result.lines.map((l) => ({ type: "line" as const, line: l })),
      { type: "result", result },
    ];
    const text = events.map((e) => print(e) ?? "").join("\n");
    expect(times(text, "is held by pull #9")).toBe(1);
    expect(times(text, "LOCK_HELD")).toBe(4);
    expect(text).toContain(`(LOCK_HELD on ${IDENTITY}, see above)`);
  });

  it("is printed once when the service answered one JSON document", () => {
    const text = runText(result).join("\n");
    expect(times(text, "is held by pull #9")).toBe(1);
  });

  it("control: two different locks are each printed in full", () => {
    const other = { ...lockHeld, message: "another lock is held by run-x", detail: { lock: "_locks/other" } };
    const two = { ...result, lines: [line("callback"), { ...line("logout"), error: other }] };
    const text = runText(two).join("\n");
    expect(times(text, "is held by pull #9")).toBe(1);
    expect(times(text, "another lock is held by run-x")).toBe(1);
  });
});

describe("a queued run", () => {
  it("prints a waiting line naming the lock, its holder, its place and the time waited", () => {
    const print = runPrinter();
    const text = print({
      type: "waiting",
      waiting: { lock: LOCK, identity: IDENTITY, holder, position: 2, waitedMs: 30_400 },
    });
    expect(text).toBe(`  waiting for ${IDENTITY} — held by pull #9 (octocat), position 2, 30 s`);
  });

  it("says how much of the run's one wait budget is left, when the service says", () => {
    const print = runPrinter();
    const text = print({
      type: "waiting",
      waiting: {
        lock: LOCK,
        identity: IDENTITY,
        holder,
        position: 2,
        waitedMs: 30_400,
        budgetLeftMs: 89_600,
      },
    });
    expect(text).toBe(
      `  waiting for ${IDENTITY} — held by pull #9 (octocat), position 2, 30 s, 90 s of the wait budget left`,
    );
  });
});

const state: LockState = {
  key: LOCK,
  kind: "parent",
  identity: IDENTITY,
  held: true,
  holder: "run-pr9",
  token: 3,
  since: holder.since,
  expiresAt: holder.expiresAt,
  heldBy: holder,
  waiters: [
    {
      holder: "run-pr10",
      since: holder.since + 1000,
      position: 1,
      by: { ...holder, run: "run-pr10", pullRequest: 10, actor: "hubot", runUrl: null },
    },
  ],
  lastToken: 3,
  history: [],
};

describe("the locks table", () => {
  it("names the holder as a person would, with its run and CI run", () => {
    const [header, row] = locksText([state], holder.since + 30_000);
    expect(header).toMatch(/^KEY +KIND +IDENTITY +HOLDER +RUN +SINCE +EXPIRES IN +WAITERS +CI RUN$/);
    expect(row).toContain("pull #9 (octocat)");
    expect(row).toContain("run-pr9");
    expect(row).toContain(holder.runUrl);
  });

  it("one lock lists its waiters with their place and who they are", () => {
    const text = lockText(state, holder.since + 30_000).join("\n");
    expect(text).toContain("held by pull #9 (octocat), run run-pr9 (preview/pr-9 in acme/web)");
    expect(text).toContain(`CI run: ${holder.runUrl}`);
    expect(text).toContain("  1. pull #10 (hubot), run run-pr10");
  });
});

describe("the provenance the CLI declares", () => {
  it("comes from the GITHUB_* variables of a pull request job that uses a service token", () => {
    expect(
      provenanceFromEnv({
        SPONSON_TOKEN: "a-service-token",
        GITHUB_ACTIONS: "true",
        GITHUB_ACTOR: "octocat",
        GITHUB_REF: "refs/pull/9/merge",
        GITHUB_HEAD_REF: "feat-x",
        GITHUB_SERVER_URL: "https://github.com",
        GITHUB_REPOSITORY: "acme/web",
        GITHUB_RUN_ID: "77",
        GITHUB_RUN_ATTEMPT: "2",
      }),
    ).toEqual({
      actor: "octocat",
      ref: "refs/pull/9/merge",
      pullRequest: 9,
      headBranch: "feat-x",
      runUrl: "https://github.com/acme/web/actions/runs/77/attempts/2",
    });
  });

  it("is nothing with the job's own OIDC token: the service reads the verified claims, and a service that predates provenance refuses the field", () => {
    expect(
      provenanceFromEnv({ GITHUB_ACTIONS: "true", GITHUB_ACTOR: "octocat", GITHUB_REF: "refs/pull/9/merge" }),
    ).toBeUndefined();
  });

  it("is nothing outside GitHub Actions, and never an http:// run URL", () => {
    expect(provenanceFromEnv({ SPONSON_TOKEN: "a-service-token" })).toBeUndefined();
    expect(
      provenanceFromEnv({
        SPONSON_TOKEN: "a-service-token",
        GITHUB_ACTIONS: "true",
        GITHUB_SERVER_URL: "http://ghe.internal",
        GITHUB_REPOSITORY: "acme/web",
        GITHUB_RUN_ID: "77",
      }),
    ).toBeUndefined();
  });
});
