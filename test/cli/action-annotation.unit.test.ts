/**
 * The error annotation a failed Action step shows (docs/cli.md, "The GitHub Action"): the
 * problem's code, its message, and what to do, for a refused request, a failed run and a usage
 * mistake the CLI stopped at before sending anything.
 */
import { describe, it } from "vitest";
import { failureAnnotation } from "../../action/annotation";
import type { RunResult } from "../../cli/client";
import { nextStep } from "../../cli/next-step";

const target = { command: "apply", target: "preview/pr-7", url: "https://sponson.example.com" };

function failedRun(error: { code: string; message: string }): RunResult {
  return {
    run: {
      id: "run-abc-12345678",
      environment: "preview",
      scope: "pr-7",
      action: "apply",
      status: "failed",
      startedAt: 0,
      finishedAt: 1000,
    },
    lines: [
      {
        id: "callback",
        op: "auth0.callbackUrl",
        key: "https://pr-7.example.com/cb",
        diff: "create",
        result: "failed",
        parent: "auth0:t:client:a",
        error,
      },
    ],
    drift: [],
    warnings: [],
  };
}

describe("the failed step's annotation", () => {
  it("a refused request: its code, its message and what to do", ({ expect }) => {
    const text = failureAnnotation({
      ...target,
      exitCode: 2,
      result: null,
      problem: {
        code: "VALIDATION",
        detail: 'line "origin" params.origin: "https://x.vercel.app/" is not an origin',
      },
      stderr: "",
    });
    expect(text).toContain("sponson apply preview/pr-7 was refused");
    expect(text).toContain(
      'VALIDATION: line "origin" params.origin: "https://x.vercel.app/" is not an origin',
    );
    expect(text).toContain("What to do:");
    expect(text).toContain("plan check");
  });

  it("a failed run: the run's error (its first failed line's), what to do, and the run's page", ({
    expect,
  }) => {
    const text = failureAnnotation({
      ...target,
      exitCode: 1,
      result: failedRun({
        code: "LOCK_HELD",
        message: "auth0:t:client:a is held by pull #9 (octocat) until 18:40",
      }),
      problem: undefined,
      stderr: "",
    });
    expect(text).toContain("sponson apply preview/pr-7 failed");
    expect(text).toContain("LOCK_HELD: auth0:t:client:a is held by pull #9 (octocat)");
    expect(text).toContain("wait: true");
    expect(text).toContain("https://sponson.example.com/dashboard/runs/run-abc-12345678");
  });

  it("a mistake the CLI stopped at: the CLI's own words", ({ expect }) => {
    const text = failureAnnotation({
      ...target,
      exitCode: 2,
      result: null,
      problem: undefined,
      stderr: "sponson: the plan sponson.plan.json is not JSON: Unexpected token\n",
    });
    expect(text).toContain("the plan sponson.plan.json is not JSON");
  });

  it("every code the service answers has a next step", ({ expect }) => {
    for (const code of [
      "VALIDATION",
      "UNAUTHENTICATED",
      "FORBIDDEN",
      "NOT_FOUND",
      "LOCK_HELD",
      "LOCK_LOST",
      "LOCK_UNAVAILABLE",
      "AUDIT_UNAVAILABLE",
      "BUDGET_EXHAUSTED",
      "CONCURRENT_MODIFICATION",
      "PAYLOAD_TOO_LARGE",
      "RATE_LIMITED",
      "PROVIDER_ERROR",
      "INTERNAL",
      "EMPTY_PLAN",
      "LIST_FULL",
      "CONNECTION_NOT_BOUND",
      "QUOTA_EXCEEDED",
      "NETWORK",
      "BAD_RESPONSE",
    ])
      expect(nextStep(code).length, code).toBeGreaterThan(20);
  });
});
