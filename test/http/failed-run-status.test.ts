/**
 * A client that only checks the status code never takes a failed run for success (docs/api.md, "A
 * run's answer"; docs/design.md, "Run outcomes and status codes"): a succeeded run answers 200, a
 * failed one a non-2xx chosen by its cause, with the run in the body unchanged; a streamed run keeps
 * 200 and its final event.
 */
import { describe, expect, it } from "vitest";
import type { ErrorCode } from "../../shared/errors";
import type { RunResult } from "../../shared/schemas/run";
import { runStatus } from "../../workers/http/run-status";
import { call, testApp } from "../helpers/app";
import { configureHost, freshAuth0Domain } from "../helpers/emulators";
import { freshPr, holdAppLock } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";

const app = testApp();

function failedRun(code: ErrorCode | undefined, lineCode?: ErrorCode): RunResult {
  const error = (c: ErrorCode) => ({ code: c, message: "x" });
  return {
    run: {
      id: "run-1",
      environment: "preview",
      scope: "pr-1",
      action: "apply",
      status: "failed",
      startedAt: 0,
      finishedAt: 1,
      ...(code ? { error: error(code) } : {}),
    },
    lines: [
      { id: "a", op: "auth0.callbackUrl", key: "k", diff: "create", result: "created", parent: null },
      {
        id: "b",
        op: "auth0.callbackUrl",
        key: "k2",
        diff: "create",
        result: "failed",
        parent: null,
        ...(lineCode ? { error: error(lineCode) } : {}),
      },
    ],
    drift: [],
    warnings: [],
  };
}

describe("the status of a run's answer, per cause", () => {
  it.each([
    ["LOCK_HELD", 409],
    ["LOCK_LOST", 409],
    ["CONCURRENT_MODIFICATION", 409],
    ["PROVIDER_ERROR", 502],
    ["RATE_LIMITED", 429],
    ["FORBIDDEN", 422],
    ["VALIDATION", 422],
    ["NOT_FOUND", 422],
    ["INTERNAL", 500],
  ] as const)("a failed run whose error is %s answers %i", (code, status) => {
    expect(runStatus(failedRun(code))).toBe(status);
  });

  it("a failed run without a run error takes its first failed line's code", () => {
    expect(runStatus(failedRun(undefined, "PROVIDER_ERROR"))).toBe(502);
  });

  it("a failed run with no error anywhere is still not a 2xx", () => {
    expect(runStatus(failedRun(undefined))).toBe(500);
  });

  it("control: a succeeded run answers 200", () => {
    const ok = failedRun(undefined);
    ok.run.status = "succeeded";
    expect(runStatus(ok)).toBe(200);
  });
});

describe("a failed run over HTTP", () => {
  it("an apply that meets a held parent lock answers 409 with the failed run in the body and Retry-After", async () => {
    const domain = freshAuth0Domain("st");
    await seedTenant(domain);
    const held = await holdAppLock(domain);
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, {
      plan: previewPlan(domain),
    });
    await held.release();
    expect(res.status).toBe(409);
    expect(res.headers.get("content-type")).toContain("application/json");
    const result = (await res.json()) as RunResult;
    expect(result.run.status).toBe("failed");
    expect(result.run.error?.code).toBe("LOCK_HELD");
    expect(result.lines.length).toBeGreaterThan(0);
    // It says how long to wait, as a LOCK_HELD refusal does: until the holder's lease ends.
    const holder = result.run.error?.detail?.holder as { expiresAt?: number } | undefined;
    expect(typeof holder?.expiresAt).toBe("number");
    const seconds = Number(res.headers.get("retry-after"));
    expect(Number.isInteger(seconds) && seconds >= 1).toBe(true);
  });

  it("an apply the provider refuses answers 502 with the failed run in the body", async () => {
    const domain = freshAuth0Domain("st");
    await seedTenant(domain);
    await configureHost(domain, { failures: [{ status: 400, count: 1, on: "write" }] });
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, {
      plan: previewPlan(domain),
    });
    expect(res.status).toBe(502);
    const result = (await res.json()) as RunResult;
    expect(result.run.status).toBe("failed");
    expect(result.run.error?.code).toBe("PROVIDER_ERROR");
    // Control for the Retry-After above: a provider's refusal names no lock end to wait for.
    expect(res.headers.get("retry-after")).toBeNull();
  });

  it("streamed, the same failed run keeps 200 and ends with its result event", async () => {
    const domain = freshAuth0Domain("st");
    await seedTenant(domain);
    const held = await holdAppLock(domain);
    const res = await call(
      app,
      "POST",
      `/v1/scopes/preview/${freshPr()}/apply`,
      { plan: previewPlan(domain) },
      { accept: "application/x-ndjson" },
    );
    await held.release();
    expect(res.status).toBe(200);
    const events = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; result?: RunResult });
    const last = events.at(-1);
    expect(last?.type).toBe("result");
    expect(last?.result?.run.status).toBe("failed");
  });

  it("control: a succeeded apply answers 200", async () => {
    const domain = freshAuth0Domain("st");
    await seedTenant(domain);
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, {
      plan: previewPlan(domain),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as RunResult).run.status).toBe("succeeded");
  });
});
