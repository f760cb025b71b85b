/**
 * Write combining at a list's cap (docs/design.md, "Lists at their cap"): a waiter found gone right
 * before the write (its removal had made room) refuses only the waiters that no longer fit, never
 * the holder, whose own changes fit.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../../shared/lock-keys";
import type { Plan } from "../../../shared/schemas/plan";
import type { RunResult } from "../../../shared/schemas/run";
import type { FaultHook } from "../../../workers/engine/deps";
import { lockStub } from "../../../workers/locks/lock-target";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { appLockKey, freshPr, holdAppLock, untilWaiters } from "../../helpers/engine";
import { APP_CLIENT, auth0Plan, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const filled = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `https://${prefix}-${i}.example.com`);

const scopeRequest = (scope: string) => ({
  repository: DEFAULT_REPOSITORY,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 30_000,
});
const request = (scope: string, plan: Plan) => ({ ...scopeRequest(scope), plan });

const originPlan = (domain: string, url: string) =>
  auth0Plan(domain, [{ id: "origin", op: "auth0.webOrigin", url }]);
const ownOrigin = (scope: string) => `https://${scope}.preview.example.com`;

async function tenantWith(webOrigins: string[]) {
  const domain = freshAuth0Domain("ccap");
  await seedAuth0Tenant(domain, {
    m2m: TEST_M2M,
    clients: { [APP_CLIENT]: { callbacks: [], allowed_logout_urls: [], web_origins: webOrigins } },
  });
  return domain;
}

/** Runs queued in this order behind a lock held by hand, then let go: the first is the holder. */
async function queued(domain: string, runs: Array<() => Promise<RunResult>>) {
  const key = await appLockKey(domain);
  const held = await holdAppLock(domain);
  const started: Array<Promise<RunResult | unknown>> = [];
  for (const [i, run] of runs.entries()) {
    started.push(run().catch((err: unknown) => err));
    await untilWaiters(key, i + 1);
  }
  await held.release();
  return (await Promise.all(started)) as RunResult[];
}

describe("a combined write at the cap", () => {
  it("a waiter whose removal made room is found gone: the waiter that needed the room is refused alone, the holder is written", async () => {
    const kept = filled(98, "kept");
    const domain = await tenantWith(kept);
    const [h, w1, w2] = [freshPr(), freshPr(), freshPr()];
    const own = originPlan(domain, "https://{scope}.preview.example.com");
    // W1 owns one entry (99 of 100), and its destroy will queue to remove it.
    expect((await testEngine().apply(request(w1, own))).run.status).toBe("succeeded");
    // Right before the holder's write (its decisions made with W1's removal), W1's scope lease goes.
    let dropped = false;
    const dropW1: FaultHook = async (point) => {
      if (point !== "after-intent" || dropped) return;
      dropped = true;
      const scopeKey = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", w1);
      await lockStub(env, scopeKey).forceRelease({
        key: scopeKey,
        reason: "test: waiter gone",
        actor: "admin",
      });
    };
    const [rh, , r2] = await queued(domain, [
      () => testEngine({ combining: true, faults: dropW1 }).apply(request(h, own)),
      () => testEngine({ combining: true }).destroy(scopeRequest(w1)),
      () => testEngine({ combining: true }).apply(request(w2, own)),
    ]);
    expect(dropped).toBe(true);
    expect(rh?.run.status).toBe("succeeded");
    expect(r2?.run.status).toBe("failed");
    expect(r2?.run.error?.code).toBe("LIST_FULL");
    const origins = (await auth0Client(domain, APP_CLIENT))?.web_origins ?? [];
    expect(origins).toEqual([...kept, ownOrigin(w1), ownOrigin(h)]);
  }, 90_000);
});
