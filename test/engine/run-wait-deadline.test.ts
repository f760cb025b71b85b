/**
 * One bound for a run's whole wait (docs/design.md, "Lease protocol": the run's side): the request's
 * wait timeout is one deadline for every lock the run waits on — its scope lease, each parent lease
 * (the combining acquire), its rollback's and recovery's removals — not a fresh timeout per lock.
 * A run whose scope lock and two parent locks are each held a while answers LOCK_HELD at its
 * deadline, with no budget left; what it had not resolved stays in its receipt, and it says so.
 * Control: the same locks each held for less, all within the budget, and the run is granted as
 * before. Time is the engine's manual clock; the locks are held by hand and let go by the test.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import type { Plan } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import { lockStub, lockTarget } from "../../workers/locks/lock-target";
import { ManualClock } from "../helpers/clock";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { appLockKey, durableIntents, freshPr, holdAppLock, receipt, untilWaiters } from "../helpers/engine";
import { expireLeaseNow, rawStub } from "../helpers/locks";
import { APP_CLIENT, auth0Connection, TEST_M2M } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const BUDGET_MS = 60_000;
const OTHER_CLIENT = "other-app";

/** One callback on each of two applications of one tenant: two parent objects, two groups. */
async function twoObjects() {
  const domain = freshAuth0Domain("deadline");
  const lists = { callbacks: [], allowed_logout_urls: [], web_origins: [], allowed_origins: [] };
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: lists, [OTHER_CLIENT]: lists } });
  const connection = auth0Connection(domain);
  const line = (id: string, client: string) => ({
    id,
    op: "auth0.callbackUrl",
    connection,
    params: { client, url: `https://{scope}.preview.example.com/${id}` },
  });
  const plan: Plan = { version: 2, lines: [line("first", APP_CLIENT), line("second", OTHER_CLIENT)] };
  return { domain, plan };
}

/** The scope's lock held by hand, as another run of the scope would hold it. */
async function holdScopeLock(scope: string) {
  const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
  const grant = await lockTarget(env, key).acquire({ holder: "run-scope-holder", ttlMs: 600_000 });
  if (!grant.ok) throw new Error(grant.error.message);
  return {
    key,
    release: () => lockStub(env, key).release({ key, holder: "run-scope-holder", token: grant.value.token }),
  };
}

/**
 * The run's answer if it comes within `ms` of real time (once the clock is at the deadline, what is
 * left is the run's own calls to the lock objects and R2), else "still waiting".
 */
async function settledWithin(run: Promise<RunResult>, ms = 5_000): Promise<RunResult | "still waiting"> {
  return Promise.race([run, scheduler.wait(ms).then(() => "still waiting" as const)]);
}

/**
 * A run queued behind its scope lock, then each of its two parent locks, each let go `heldMs` after
 * the run started waiting for it (the clock moved by the test, the locks let go by hand).
 */
async function runBehindThreeHolders(heldMs: number) {
  const { domain, plan } = await twoObjects();
  const clock = new ManualClock();
  // A long lease: no renewal timer comes due while the test moves the clock.
  const engine = testEngine({ clock, bindings: { LEASE_TTL_SECONDS: "600" } });
  const scope = freshPr();
  const scopeLock = await holdScopeLock(scope);
  const first = await holdAppLock(domain, "run-first-holder", APP_CLIENT);
  const second = await holdAppLock(domain, "run-second-holder", OTHER_CLIENT);
  const start = clock.now();
  const run = engine.apply({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    plan,
    wait: true,
    waitTimeoutMs: BUDGET_MS,
  });
  await untilWaiters(scopeLock.key, 1);
  clock.advance(heldMs);
  await scopeLock.release();
  await untilWaiters(first.key, 1);
  clock.advance(heldMs);
  await first.release();
  await untilWaiters(second.key, 1);
  return { domain, scope, clock, engine, start, run, second };
}

const callbackOf = (scope: string, id: string) => `https://${scope}.preview.example.com/${id}`;

describe("a run's wait is bounded by one deadline", () => {
  it("scope lock and two parent locks each held past a third of the budget: LOCK_HELD at the deadline, nothing left unrecorded", async () => {
    const { domain, scope, clock, engine, start, run, second } = await runBehindThreeHolders(
      0.35 * BUDGET_MS,
    );
    // 70 % of the budget went to the scope lock and the first object; the rest runs out here.
    clock.advance(start + BUDGET_MS - 1 - clock.now());
    const secondKey = await appLockKey(domain, OTHER_CLIENT);
    expect((await lockStub(env, secondKey).read({ key: secondKey })).waiters).toHaveLength(1);
    clock.advance(1);
    const answered = await settledWithin(run);
    if (answered === "still waiting") await second.release();
    // Before the deadline, each lock had a wait timeout of its own: the run was still waiting here.
    expect(answered).not.toBe("still waiting");
    const result = answered as RunResult;
    expect(clock.now() - start).toBe(BUDGET_MS);
    expect(result.run.status).toBe("failed");
    const line = (id: string) => result.lines.find((l) => l.id === id);
    expect(line("second")?.error).toMatchObject({
      code: "LOCK_HELD",
      detail: {
        holder: expect.objectContaining({ run: "run-second-holder" }),
        budgetMs: BUDGET_MS,
        budgetLeftMs: 0,
      },
    });
    // The rollback still takes back what the run wrote where the lock is free: a try, not a wait.
    expect(line("first")?.result).toBe("rolled-back");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    // The second object's intent stays (its lock was never this run's to resolve it under), and the
    // run says so. So does the remove intent of the recovery that tried: refused before the object
    // while the given-up ask may still be queued there with its change, nothing vouches for it.
    expect((await durableIntents("preview", scope)).map((i) => [i.action, i.key])).toEqual([
      ["create", callbackOf(scope, "second")],
      ["remove", callbackOf(scope, "second")],
    ]);
    expect(result.warnings.some((w) => w.includes(callbackOf(scope, "second")) && w.includes("stays"))).toBe(
      true,
    );

    // The scope's next run resolves it, once the lock is free. (The run's place in that queue
    // outlived its wait: the object's own timer runs on real time, the run's race on the test's
    // clock. Let go, the lock is handed to it and never claimed; its claim window is made to pass.)
    await second.release();
    await expireLeaseNow(second.key);
    await runDurableObjectAlarm(rawStub(second.key));
    const recovered = await engine.recover({ repository: DEFAULT_REPOSITORY, environment: "preview", scope });
    expect(recovered.run.status).toBe("succeeded");
    expect(await durableIntents("preview", scope)).toEqual([]);
    expect((await auth0Client(domain, OTHER_CLIENT))?.callbacks).toEqual([]);
  });

  it("a destroy's removal waits until the run's deadline, not the service's timeout: the entry stays in the ledger", async () => {
    const { domain, plan } = await twoObjects();
    const clock = new ManualClock();
    const engine = testEngine({ clock, bindings: { LEASE_TTL_SECONDS: "600" } });
    const scope = freshPr();
    const req = { repository: DEFAULT_REPOSITORY, environment: "preview", scope };
    expect((await engine.apply({ ...req, plan })).run.status).toBe("succeeded");
    const first = await holdAppLock(domain, "run-first-holder", APP_CLIENT);
    const start = clock.now();
    // A short budget: the service's own timeout (120 s) would have been each removal's before.
    const destroy = engine.destroy({ ...req, wait: true, waitTimeoutMs: 10_000 });
    await untilWaiters(first.key, 1);
    clock.advance(10_000);
    const answered = await settledWithin(destroy);
    if (answered === "still waiting") await first.release();
    expect(answered).not.toBe("still waiting");
    const result = answered as RunResult;
    expect(clock.now() - start).toBe(10_000);
    expect(result.run.status).toBe("failed");
    expect(result.lines.find((l) => l.id === "first")).toMatchObject({
      result: "failed",
      error: { code: "LOCK_HELD", detail: { budgetMs: 10_000, budgetLeftMs: 0 } },
    });
    // The other object's lock was free: removed. This one's entry is still the scope's, recorded.
    expect(result.lines.find((l) => l.id === "second")?.result).toBe("removed");
    expect((await receipt("preview", scope)).ledger.map((e) => e.line)).toEqual(["first"]);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([callbackOf(scope, "first")]);

    await first.release();
    await expireLeaseNow(first.key);
    await runDurableObjectAlarm(rawStub(first.key));
    expect((await engine.destroy(req)).run.status).toBe("succeeded");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  });

  it("control: the same three locks each held for less, all within the budget: granted as before", async () => {
    const { domain, scope, clock, start, run, second } = await runBehindThreeHolders(0.3 * BUDGET_MS);
    clock.advance(0.3 * BUDGET_MS);
    await second.release();
    const result = await run;
    expect(clock.now() - start).toBe(0.9 * BUDGET_MS);
    expect(result.run.status).toBe("succeeded");
    expect(result.lines.map((l) => [l.id, l.result])).toEqual([
      ["first", "created"],
      ["second", "created"],
    ]);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([callbackOf(scope, "first")]);
    expect((await auth0Client(domain, OTHER_CLIENT))?.callbacks).toEqual([callbackOf(scope, "second")]);
    expect(await durableIntents("preview", scope)).toEqual([]);
  });
});
