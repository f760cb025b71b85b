/**
 * The client reads a failed run from a non-2xx JSON answer (docs/api.md, "A run's answer"): a body
 * with `run` is the run, never a problem, so a failed apply is reported once and never retried as
 * if it had been refused. A problem stays an ApiError.
 */
import { describe, expect, it } from "vitest";
import { ApiError, type RunResult, SponsonClient } from "../../cli/client";

const failedRun: RunResult = {
  run: {
    id: "run-1",
    environment: "preview",
    scope: "pr-1",
    action: "apply",
    status: "failed",
    startedAt: 0,
    finishedAt: 1,
    error: { code: "PROVIDER_ERROR", message: "auth0: 503" },
  },
  lines: [],
  drift: [],
  warnings: [],
};

function answering(status: number, body: unknown, contentType = "application/json"): SponsonClient {
  const fetch = (async () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": contentType },
    })) as typeof globalThis.fetch;
  return new SponsonClient({ url: "https://sponson.test", fetch });
}

describe("a failed run's non-2xx answer", () => {
  it("502 with the run in the body: the client returns the failed run", async () => {
    const result = await answering(502, failedRun).run("apply", "preview", "pr-1", {
      plan: { version: 2, lines: [] },
    });
    expect(result.run.status).toBe("failed");
    expect(result.run.error?.code).toBe("PROVIDER_ERROR");
  });

  it("the same when the CLI asked for a stream and the service answered one document", async () => {
    const events: unknown[] = [];
    const result = await answering(409, {
      ...failedRun,
      run: { ...failedRun.run, error: { code: "LOCK_HELD", message: "held" } },
    }).run("destroy", "preview", "pr-1", {}, (e) => events.push(e));
    expect(result.run.error?.code).toBe("LOCK_HELD");
  });

  it("control: a problem answer is still an ApiError with its code", async () => {
    const problem = {
      type: "about:blank",
      title: "held",
      status: 409,
      code: "LOCK_HELD",
      detail: "held",
      retriable: true,
    };
    const client = answering(409, problem, "application/problem+json");
    await expect(
      client.run("apply", "preview", "pr-1", { plan: { version: 2, lines: [] } }),
    ).rejects.toBeInstanceOf(ApiError);
  });
});
