/**
 * Observability (docs/operations.md): every run the engine finishes is logged as one structured
 * line (run id, scope, provenance, status, counts, timings) with no secret in it, and written to
 * Analytics Engine as one data point per run and one per lease it waited for. The local dataset
 * drops writes, so a recording stand-in takes them here.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import { createEngine } from "../../workers/wiring/wire";
import { testEnv } from "../helpers/connections";
import { freshAuth0Domain } from "../helpers/emulators";
import { previewPlan, seedTenant, TEST_M2M } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { freshPullRequest } from "../webhooks/github-delivery";

function recordingDataset() {
  const points: AnalyticsEngineDataPoint[] = [];
  return { points, dataset: { writeDataPoint: (p?: AnalyticsEngineDataPoint) => p && points.push(p) } };
}

afterEach(() => vi.restoreAllMocks());

describe("one log line and one data point per run", () => {
  it("an apply logs its run with its fields and no secret, and writes its run and lock-wait points", async () => {
    const domain = freshAuth0Domain("obs");
    await seedTenant(domain);
    const plan = previewPlan(domain);
    const recorded = recordingDataset();
    const engine = createEngine(testEnv(env), emulatorTransport, {
      analytics: recorded.dataset as unknown as AnalyticsEngineDataset,
    });
    const logs: string[] = [];
    vi.spyOn(console, "log").mockImplementation(
      (...args: unknown[]) => void logs.push(args.map(String).join(" ")),
    );
    const scope = `pr-${freshPullRequest()}`;
    const result = await engine.apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
      wait: true,
      provenance: {
        repository: DEFAULT_REPOSITORY.name,
        event: "pull_request",
        ref: "refs/pull/7/merge",
        pullRequest: null,
        headBranch: null,
        sha: null,
        actor: "octocat",
        workflow: "preview",
        runUrl: null,
        declared: true,
      },
    });
    expect(result.run.status).toBe("succeeded");

    // This scope's lines only: other test files share the runtime, and their runs log too.
    const runLines = logs.filter((l) => l.includes('"event":"run"') && l.includes(`"scope":"${scope}"`));
    expect(runLines).toHaveLength(1);
    const line = JSON.parse(runLines[0] as string);
    expect(line).toMatchObject({
      event: "run",
      runId: result.run.id,
      repositoryId: DEFAULT_REPOSITORY.id,
      environment: "preview",
      scope,
      action: "apply",
      status: "succeeded",
      error: null,
      provenance: { actor: "octocat", event: "pull_request", declared: true },
      lines: { created: 3 },
      counts: { providerCalls: expect.any(Number), locks: 2 },
      timings: { total: expect.any(Number), scopeLockWait: expect.any(Number) },
    });
    for (const secret of [TEST_M2M.clientSecret, env.SERVICE_SIGNING_KEY as string]) {
      expect(runLines[0]).not.toContain(secret);
    }

    const runPoints = recorded.points.filter((p) => p.indexes?.[0] === "run");
    expect(runPoints).toHaveLength(1);
    expect(runPoints[0]?.blobs?.slice(0, 4)).toEqual(["apply", "succeeded", "", "preview"]);
    expect(runPoints[0]?.blobs?.[6]).toBe(result.run.id);
    expect(runPoints[0]?.doubles?.[5]).toBe(3);
    const waits = recorded.points.filter((p) => p.indexes?.[0] === "lock-wait");
    // The scope lease and the application's parent lease.
    expect(waits.map((p) => p.blobs?.[1]).sort()).toEqual(["parent", "scope"]);
    expect(waits.every((p) => p.blobs?.[2] === result.run.id && typeof p.doubles?.[0] === "number")).toBe(
      true,
    );
    expect(JSON.stringify(recorded.points)).not.toContain(TEST_M2M.clientSecret);
  });
});

describe("a run refused before it starts", () => {
  it("is logged as one line too: status refused and its code, no run id, no secret, no data point", async () => {
    const domain = freshAuth0Domain("obs-refused");
    const plan = previewPlan(domain);
    const refusedPlan = {
      ...plan,
      lines: plan.lines.map((l) => ({ ...l, connection: "no-such-connection" })),
    };
    const recorded = recordingDataset();
    const engine = createEngine(testEnv(env), emulatorTransport, {
      analytics: recorded.dataset as unknown as AnalyticsEngineDataset,
    });
    const logs: string[] = [];
    vi.spyOn(console, "log").mockImplementation(
      (...args: unknown[]) => void logs.push(args.map(String).join(" ")),
    );
    const scope = `pr-${freshPullRequest()}`;
    const refused = await engine
      .apply({ repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan: refusedPlan })
      .then(
        () => null,
        (err: unknown) => err as { code?: string },
      );
    expect(refused?.code).toBe("VALIDATION");

    // This scope's lines only: other test files share the runtime, and their runs log too.
    const runLines = logs.filter((l) => l.includes('"event":"run"') && l.includes(`"scope":"${scope}"`));
    expect(runLines).toHaveLength(1);
    expect(JSON.parse(runLines[0] as string)).toMatchObject({
      event: "run",
      runId: null,
      repositoryId: DEFAULT_REPOSITORY.id,
      environment: "preview",
      scope,
      action: "apply",
      status: "refused",
      error: "VALIDATION",
    });
    expect(runLines[0]).not.toContain(TEST_M2M.clientSecret);
    expect(recorded.points).toEqual([]);
  });
});
