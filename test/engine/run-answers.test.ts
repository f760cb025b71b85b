/**
 * Every answer of a run is true and complete (docs/design.md, "Run algorithm"): each plan line
 * gets a result, also one the run never reached; a receipt save that fails after the run wrote
 * answers with the run (what it did, and that it was not recorded), never a bare 500; an error
 * nobody expected is logged once with the run, the line and the stack, and the answer says only
 * "internal error"; a JSON-mode run is kept alive by `waitUntil` like a streamed one, so a client
 * that hangs up does not cancel it half-way.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import { apply, testApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { auth0Client, configureHost, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { durableIntents, freshPr, holdAppLock } from "../helpers/engine";
import { overriding } from "../helpers/lock-overrides";
import { APP_CLIENT, auth0Connection, previewPlan, seedTenant, TEST_M2M } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";
import { bearer } from "../helpers/tokens";

const OTHER_CLIENT = "other-app";

afterEach(() => {
  vi.restoreAllMocks();
});

/** R2 as the engine sees it, whose puts fail like a dropped connection once `broken` is set. */
function flakyReceipts() {
  const state = { broken: false };
  const bucket = new Proxy(env.RECEIPTS, {
    get(target, prop) {
      if (prop === "put" && state.broken)
        return async () => {
          throw new Error("Network connection lost.");
        };
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { state, bindings: { ...env, RECEIPTS: bucket } as typeof env };
}

describe("run answers", () => {
  it("lines after the first failing object are not-attempted, with the change the run planned (what the preview said)", async () => {
    const domain = freshAuth0Domain("nr");
    const lists = { callbacks: [], allowed_logout_urls: [], web_origins: [], allowed_origins: [] };
    await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: lists, [OTHER_CLIENT]: lists } });
    const connection = auth0Connection(domain);
    const scope = freshPr();
    const plan: Plan = {
      version: 2,
      lines: [APP_CLIENT, OTHER_CLIENT].map((client) => ({
        id: client,
        op: "auth0.callbackUrl",
        connection,
        params: { client, url: `https://${scope}.preview.example.com/cb` },
      })),
    };
    const held = await holdAppLock(domain);
    const result = await apply(testApp(), "preview", scope, plan);
    await held.release();
    expect(result.run.status).toBe("failed");
    expect(result.lines.map((l) => [l.id, l.result, l.diff, l.planned, l.error?.code])).toEqual([
      [APP_CLIENT, "failed", "create", undefined, "LOCK_HELD"],
      [OTHER_CLIENT, "not-attempted", "create", "create", undefined],
    ]);
    expect(result.lines[1]?.reason).toContain("not attempted");
    expect((await auth0Client(domain, OTHER_CLIENT))?.callbacks).toEqual([]);
  });

  it("a not-attempted line whose item the ledger holds was planned to be kept (diff unchanged), not created; a new one's was a create", async () => {
    const domain = freshAuth0Domain("nr-keep");
    const lists = { callbacks: [], allowed_logout_urls: [], web_origins: [], allowed_origins: [] };
    await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: lists, [OTHER_CLIENT]: lists } });
    const connection = auth0Connection(domain);
    const scope = freshPr();
    const line = (id: string, client: string, path: string) => ({
      id,
      op: "auth0.callbackUrl",
      connection,
      params: { client, url: `https://${scope}.preview.example.com/${path}` },
    });
    const held = [line("app", APP_CLIENT, "cb"), line("other", OTHER_CLIENT, "cb")];
    expect((await apply(testApp(), "preview", scope, { version: 2, lines: held })).run.status).toBe(
      "succeeded",
    );
    // The reads before any lease are refused: the first line fails, the run stops there.
    await configureHost(domain, { failures: [{ status: 400, count: 2, on: "read" }] });
    const plan: Plan = { version: 2, lines: [...held, line("new", OTHER_CLIENT, "new")] };
    const result = await apply(testApp(), "preview", scope, plan);
    await configureHost(domain, {});
    expect(result.lines.map((l) => [l.id, l.result, l.diff, l.planned])).toEqual([
      ["app", "failed", "create", undefined],
      ["other", "not-attempted", "unchanged", "keep"],
      ["new", "not-attempted", "create", "create"],
    ]);
    // What a preview says of them, once the provider answers again.
    const preview = await testEngine().preview({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(preview.lines.map((l) => [l.id, l.diff])).toEqual([
      ["app", "unchanged"],
      ["other", "unchanged"],
      ["new", "create"],
    ]);
  });

  it("a refused run whose scope lock's answer is lost, and asking again fails too, says the lease may stay held", async () => {
    const domain = freshAuth0Domain("refused-lost");
    await seedTenant(domain);
    const scope = freshPr();
    const plan = previewPlan(domain);
    // The identity would hold the M2M secret: the lines are refused, the run only recorded.
    for (const line of plan.lines) line.params.client = TEST_M2M.clientSecret.replace(/[^A-Za-z0-9_-]/g, "");
    const engine = testEngine({
      wrapLocks: (inner) => ({
        ...inner,
        parent: inner.parent.bind(inner),
        holdsScope: inner.holdsScope.bind(inner),
        scope: (repositoryId, environment, name) => {
          const target = inner.scope(repositoryId, environment, name);
          // Every acquire reaches the object, and its answer is lost to an object reset.
          return overriding(target, {
            acquire: async (req) => {
              await target.acquire(req);
              throw Object.assign(new Error("Durable Object reset because its code was updated."), {
                durableObjectReset: true,
              });
            },
          });
        },
      }),
    });
    const result = await engine.apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
      wait: true,
    });
    expect(result.run.status).toBe("failed");
    expect(result.warnings).toContainEqual(
      expect.stringContaining("stays held until its TTL and the lock-delay"),
    );
    expect(result.warnings).toContainEqual(expect.stringContaining("was not recorded"));
  });

  it("a receipt save that fails in transport after the run wrote: the run is answered, failed, saying it was not recorded", async () => {
    const domain = freshAuth0Domain("save");
    await seedTenant(domain);
    const scope = freshPr();
    const plan = previewPlan(domain);
    const { state, bindings } = flakyReceipts();
    vi.spyOn(console, "error").mockImplementation(() => {});
    const engine = testEngine({
      bindings,
      faults: (at) => {
        if (at === "after-write") state.broken = true;
      },
    });
    const req = { repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan };
    const result = await engine.apply(req);
    expect(result.run.status).toBe("failed");
    expect(result.lines.map((l) => l.result)).toEqual(["created", "created", "created"]);
    expect(result.warnings.join(" ")).toContain("not recorded");
    expect(JSON.stringify(result)).not.toContain("Network connection lost");
    // The intents saved before the write are still there: the next run resolves them.
    expect(await durableIntents("preview", scope)).toHaveLength(3);
    const next = await testEngine().apply(req);
    expect(next.run.status).toBe("succeeded");
    expect(next.warnings.join(" ")).toContain("recovered 3 intent");
  });

  it("an unexpected error inside a run is logged once with the run, its lines and the stack, and never answered", async () => {
    const domain = freshAuth0Domain("log");
    await seedTenant(domain);
    const scope = freshPr();
    const plan = previewPlan(domain);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const engine = testEngine({
      faults: (at, { action }) => {
        if (at === "after-write" && action === "create") throw new TypeError("boom: an adapter bug");
      },
    });
    const result: RunResult = await engine.apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(result.run.status).toBe("failed");
    expect(result.lines[0]?.error).toEqual({ code: "INTERNAL", message: "internal error" });
    expect(JSON.stringify(result)).not.toContain("boom");
    const mentions = logged.mock.calls.map((c) => c.join(" ")).filter((m) => m.includes("boom"));
    expect(mentions).toHaveLength(1);
    expect(mentions[0]).toContain(result.run.id);
    expect(mentions[0]).toContain("callback");
    expect(mentions[0]).toContain("TypeError");
    expect(mentions[0]).toMatch(/\n\s+at /);
  });

  it("a JSON-mode run is handed to waitUntil, as a streamed one is", async () => {
    const domain = freshAuth0Domain("wu");
    await seedTenant(domain);
    const kept: Promise<unknown>[] = [];
    const ctx = {
      waitUntil: (p: Promise<unknown>) => void kept.push(p),
      passThroughOnException: () => {},
      props: {},
    } as unknown as ExecutionContext;
    const res = await testApp().request(
      `http://sponson.test/v1/scopes/preview/${freshPr()}/apply`,
      {
        method: "POST",
        headers: { ...(await bearer("admin")), "content-type": "application/json" },
        body: JSON.stringify({ plan: previewPlan(domain) }),
      },
      testEnv(env),
      ctx,
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as RunResult).run.status).toBe("succeeded");
    expect(kept).toHaveLength(1);
    await Promise.all(kept);
  });
});
