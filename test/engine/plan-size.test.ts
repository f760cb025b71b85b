/**
 * Any plan size works (docs/design.md, "Write combining"): a group larger than one combined
 * request may carry (MAX_QUEUED_CHANGES) is written anyway, without combining, under one lease.
 * A 500-line plan on one application applies, re-applies unchanged and destroys — from the
 * engine, over HTTP, and through the destroy queue's consumer.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import { MAX_QUEUED_CHANGES } from "../../shared/schemas/combine";
import { MAX_PLAN_LINES } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import { DESTROY_QUEUE_NAME } from "../../workers/queue/queued-destroy";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { engineDestroyRunner } from "../../workers/wiring/background";
import { apply as applyOverHttp, destroy as destroyOverHttp, testApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { expectLocksFree, freshPr, receipt } from "../helpers/engine";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";
import { batchOf, consume } from "../queue/queue-batches";

/** `n` callback URLs of the scope on the one test application. */
function bigPlan(domain: string, n: number) {
  return auth0Plan(
    domain,
    Array.from({ length: n }, (_, i) => ({
      id: `cb-${i}`,
      op: "auth0.callbackUrl",
      url: `https://{scope}.preview.example.com/cb/${i}`,
    })),
  );
}

const urls = (scope: string, n: number) =>
  Array.from({ length: n }, (_, i) => `https://${scope}.preview.example.com/cb/${i}`);

const request = (scope: string) => ({
  repository: DEFAULT_REPOSITORY,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 30_000,
});

function results(run: RunResult): string[] {
  return [...new Set(run.lines.map((l) => l.result))];
}

describe("a plan larger than one combined request", () => {
  it("the limits this test is about: plans allow more lines than one waiter may queue", () => {
    expect(MAX_PLAN_LINES).toBeGreaterThan(MAX_QUEUED_CHANGES);
  });

  it(`${MAX_PLAN_LINES} lines on one application: the engine applies, re-applies unchanged and destroys`, async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const plan = bigPlan(domain, MAX_PLAN_LINES);
    const engine = testEngine();
    const scope = freshPr();

    const first = await engine.apply({ ...request(scope), plan });
    expect(first.run.status, JSON.stringify(first.lines.find((l) => l.error))).toBe("succeeded");
    expect(results(first)).toEqual(["created"]);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual(urls(scope, MAX_PLAN_LINES));

    const again = await engine.apply({ ...request(scope), plan });
    expect(again.run.status).toBe("succeeded");
    expect(results(again)).toEqual(["unchanged"]);

    const gone = await engine.destroy(request(scope));
    expect(gone.run.status, JSON.stringify(gone.lines.find((l) => l.error))).toBe("succeeded");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    expect((await receipt("preview", scope)).ledger).toEqual([]);
    await expectLocksFree(expect, domain, [scope]);
  });

  it("250 lines over HTTP apply, and the queued destroy of the closed scope removes them all", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const app = testApp();
    const scope = freshPr();
    const plan = bigPlan(domain, 250);

    const first = await applyOverHttp(app, "preview", scope, plan);
    expect(first.run.status).toBe("succeeded");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toHaveLength(250);
    const again = await applyOverHttp(app, "preview", scope, plan);
    expect(results(again)).toEqual(["unchanged"]);

    const closedAt = Date.now();
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
      status: "closed",
      revision: closedAt,
      deliveryId: `close-${scope}`,
    });
    const job = {
      repositoryId: DEFAULT_REPOSITORY.id,
      environment: "preview",
      scope,
      revision: closedAt,
      deliveryId: `close-${scope}`,
    };
    const { handled, result } = await consume(
      batchOf(DESTROY_QUEUE_NAME, [job]),
      { runDestroy: engineDestroyRunner(emulatorTransport) },
      testEnv(env),
    );
    expect(
      handled.queue === "destroys" && handled.reports.map((r) => r.status === "done" && r.outcome),
    ).toEqual(["destroyed"]);
    expect(result.retryMessages).toEqual([]);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    expect((await receipt("preview", scope)).ledger).toEqual([]);
  });

  it("250 lines over HTTP destroy over HTTP", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const app = testApp();
    const scope = freshPr();
    expect((await applyOverHttp(app, "preview", scope, bigPlan(domain, 250))).run.status).toBe("succeeded");
    const gone = await destroyOverHttp(app, "preview", scope);
    expect(gone.run.status).toBe("succeeded");
    expect(results(gone)).toEqual(["removed"]);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  });

  it("250 entries a scope got without combining are destroyed by its queued destroy (no dead letter)", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const plan = bigPlan(domain, 250);
    const off = testEngine({ combining: false });
    expect((await off.apply({ ...request(scope), plan })).run.status).toBe("succeeded");
    const closedAt = Date.now();
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
      status: "closed",
      revision: closedAt,
      deliveryId: `close-${scope}`,
    });
    const outcome = await engineDestroyRunner(emulatorTransport)(testEnv(env), {
      repositoryId: DEFAULT_REPOSITORY.id,
      environment: "preview",
      scope,
      revision: closedAt,
      deliveryId: `close-${scope}`,
    });
    expect(outcome.outcome).toBe("destroyed");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  });
});
