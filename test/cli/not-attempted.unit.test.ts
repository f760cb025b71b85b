/**
 * A line the run never got to (docs/design.md, "Run algorithm", step 6) reads as what it is in the
 * CI log, the step summary and the pull-request comment: `not-attempted`, with the change the run
 * had planned (`create`, or `keep` for an entry the scope already has), never `unchanged`.
 */
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../cli/client";
import { counts, lineText } from "../../cli/render";
import { runSummary } from "../../cli/step-summary";

const IDENTITY = "auth0:acme.us.auth0.com:client:preview-app";
const result: RunResult = {
  run: {
    id: "run-na",
    environment: "preview",
    scope: "pr-1",
    action: "apply",
    status: "failed",
    startedAt: 0,
    finishedAt: 1200,
  },
  lines: [
    {
      id: "callback",
      op: "auth0.callbackUrl",
      key: "https://pr-1.example.com/cb",
      diff: "create",
      result: "failed",
      parent: IDENTITY,
      error: { code: "PROVIDER_ERROR", message: "auth0: 503" },
    },
    {
      id: "other",
      op: "auth0.callbackUrl",
      key: "https://pr-1.example.com/other",
      diff: "create",
      result: "not-attempted",
      planned: "create",
      parent: "auth0:acme.us.auth0.com:client:other-app",
      reason: "not attempted: the run stopped at an earlier line or step",
    },
  ],
  drift: [],
  warnings: [],
};

describe("a line the run never got to", () => {
  it("prints as not-attempted with its planned change", () => {
    expect(lineText(result.lines[1] as RunResult["lines"][number])).toBe(
      "  ·  other  auth0.callbackUrl  not-attempted  https://pr-1.example.com/other (planned: create; not attempted: the run stopped at an earlier line or step)",
    );
    expect(counts(result)).toBe("1 failed, 1 not-attempted");
  });

  it("the step summary's row says create and not-attempted, never unchanged", () => {
    const row = runSummary(result)
      .split("\n")
      .find((l) => l.startsWith("| other"));
    expect(row).toContain("| create | not-attempted (planned create) |");
    expect(row).not.toContain("unchanged");
  });

  it("an entry the scope already has reads as not-attempted, planned keep", () => {
    const kept = {
      ...(result.lines[1] as RunResult["lines"][number]),
      diff: "unchanged" as const,
      planned: "keep" as const,
    };
    expect(lineText(kept)).toContain(
      "not-attempted  https://pr-1.example.com/other (planned: keep; not attempted:",
    );
    const row = runSummary({ ...result, lines: [kept] })
      .split("\n")
      .find((l) => l.startsWith("| other"));
    expect(row).toContain("| unchanged | not-attempted (planned keep) |");
  });
});
