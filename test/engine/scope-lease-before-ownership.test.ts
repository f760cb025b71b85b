/**
 * The scope lease is checked by a round trip before every ownership change (docs/design.md,
 * "Ownership of shared entries"): a run whose scope lock an admin force-released (or whose scope
 * was recovered by another run) must record no owner and write nothing, even though its own
 * deadline has not passed. Otherwise its scope is named an owner of entries its receipt never
 * records (a ghost owner), and they are never removed.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import type { Plan } from "../../shared/schemas/plan";
import { emptyReceipt } from "../../shared/schemas/receipt";
import type { RunResult } from "../../shared/schemas/run";
import type { FaultHook } from "../../workers/engine/deps";
import type { Engine } from "../../workers/engine/engine";
import { lockStub } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import type { EngineOverrides } from "../../workers/wiring/wire";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import {
  appIdentity,
  appLockKey,
  durableIntents,
  freshPr,
  holdAppLock,
  providerWrites,
  untilWaiters,
} from "../helpers/engine";
import { APP_CLIENT, auth0Connection, auth0Plan, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const SHARED = "https://shared.example.com/callback";

function engine(overrides: EngineOverrides = {}) {
  return testEngine(overrides);
}

function apply(e: Engine, scope: string, plan: Plan): Promise<RunResult> {
  return e.apply({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    plan,
    wait: true,
    waitTimeoutMs: 30_000,
  });
}

/** An admin force-releases the scope's lock, as the dashboard does. */
async function forceReleaseScope(scope: string): Promise<void> {
  const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
  await lockStub(env, key).forceRelease({ key, reason: "test: stuck run", actor: "admin" });
}

async function ownedItems(domain: string) {
  const key = await appLockKey(domain);
  return (await lockStub(env, key).ownership({ key })).items.filter((i) => i.owners.length > 0);
}

describe("the scope lease before an ownership change", () => {
  it("force-released at the last await before a claim: no owner recorded, no provider write", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const plan = previewPlan(domain);
    const scope = freshPr();
    const stuck: FaultHook = async (point) => {
      if (point === "after-intent") await forceReleaseScope(scope);
    };
    const e = engine({ faults: stuck, combining: false });
    const writesBefore = await providerWrites(domain);
    const result = await apply(e, scope, plan);
    expect(result.run.status).toBe("failed");
    expect(result.run.error?.code).toBe("LOCK_LOST");
    expect(await ownedItems(domain)).toEqual([]);
    expect(await providerWrites(domain)).toBe(writesBefore);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  });

  it("force-released while it reads under the parent lease, before a pure join: the scope does not join", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain, { callbacks: [SHARED] });
    const plan = auth0Plan(domain, [{ id: "shared", op: "auth0.callbackUrl", url: SHARED }]);
    const scope = freshPr();
    // A new scope's ledger holds nothing, so its first read of the application is the one under
    // the parent lease (no read before any lease); the scope lock goes while it is in flight.
    let reads = 0;
    const releaseOnFirstRead = (inner: typeof fetch): typeof fetch => {
      return async (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        if ((init?.method ?? "GET") === "GET" && url.pathname.includes(`/clients/${APP_CLIENT}`)) {
          reads += 1;
          if (reads === 1) await forceReleaseScope(scope);
        }
        return inner(input, init);
      };
    };
    const writesBefore = await providerWrites(domain);
    const result = await apply(engine({ wrapFetch: releaseOnFirstRead, combining: false }), scope, plan);
    expect(reads).toBe(1);
    expect(result.run.status).toBe("failed");
    expect(await ownedItems(domain)).toEqual([]);
    expect(await providerWrites(domain)).toBe(writesBefore);
  });

  it("a recovery of the scope is served before the stale run: the stale run records no ghost owner and writes nothing", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const plan = previewPlan(domain);
    const scope = freshPr();
    const key = await appLockKey(domain);
    // Someone holds the application; the stale run queues behind it with its changes.
    const held = await holdAppLock(domain);
    const stale = apply(engine(), scope, plan);
    await untilWaiters(key, 1);
    // Its scope lock is force-released and a recovery of the scope starts: it finds the stale
    // run's intents and queues to remove them.
    await forceReleaseScope(scope);
    const recovery = engine().recover({ repository: DEFAULT_REPOSITORY, environment: "preview", scope });
    await untilWaiters(key, 2);
    // The holder serves the recovery, whose run holds the scope, and returns the stale run's
    // changes (its run no longer holds the scope), as a combining holder does. The recovery
    // queues once per intent it resolves, so it is served until it is done.
    let done = false;
    const finished = recovery.finally(() => {
      done = true;
    });
    const token = (await lockStub(env, key).read({ key })).token as number;
    const staleRun = (await lockStub(env, key).read({ key })).waiters[0]?.holder;
    while (!done) {
      const taken = await lockStub(env, key).takeQueued({ key, holder: "run-other", token });
      if (!taken.ok) throw new Error(taken.error.message);
      if (taken.value.waiters.length === 0) {
        await scheduler.wait(1);
        continue;
      }
      const reports = taken.value.waiters.map(({ waiter, changes }) =>
        waiter === staleRun
          ? {
              waiter,
              applied: [],
              returned: changes.map((c) => ({
                id: c.id,
                error: { code: "LOCK_LOST" as const, message: "its run no longer holds its scope lease" },
              })),
            }
          : {
              waiter,
              applied: changes.map((c) => ({ id: c.id, outcome: "already" as const })),
              returned: [],
            },
      );
      const reported = await lockStub(env, key).reportCombined({ key, holder: "run-other", token, reports });
      if (!reported.ok) throw new Error(reported.error.message);
    }
    await finished;
    const recovered = await recovery;
    expect(recovered.warnings.join(" ")).toContain("recovered 3 intent");
    expect(await durableIntents("preview", scope)).toEqual([]);
    // Only now is the stale run granted the application's lease.
    const writesBefore = await providerWrites(domain);
    await held.release();
    const result = await stale;
    expect(result.run.status).toBe("failed");
    expect(await ownedItems(domain)).toEqual([]);
    expect(await providerWrites(domain)).toBe(writesBefore);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  });

  it("a combining holder checks each waiter's scope lease again right before the write: a waiter whose scope went after the take is not written for", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const plan = previewPlan(domain);
    const [a, b] = [freshPr(), freshPr()];
    // The holder has taken b's changes (the take comes first under its lease) when b's scope
    // lock is force-released, just before the holder's write.
    const dropWaitersScope: FaultHook = async (point, { runId }) => {
      if (point === "after-intent" && runId === holderRun) await forceReleaseScope(b);
    };
    let holderRun = "";
    const [holder, waiter] = [engine({ faults: dropWaitersScope }), engine()];
    const key = await appLockKey(domain);
    const held = await holdAppLock(domain);
    const first = apply(holder, a, plan);
    await untilWaiters(key, 1);
    holderRun = (await lockStub(env, key).read({ key })).waiters[0]?.holder ?? "";
    const second = apply(waiter, b, plan);
    await untilWaiters(key, 2);
    await held.release();
    const [ra, rb] = await Promise.all([first, second]);
    expect(ra.run.status).toBe("succeeded");
    // Nothing was written for b: no combined answer, no owner, not on the provider.
    const history = (await lockStub(env, key).read({ key })).history;
    expect(history.some((h) => h.transition === "combined")).toBe(false);
    expect(rb.lines.every((l) => l.writtenBy === undefined)).toBe(true);
    expect((await ownedItems(domain)).flatMap((i) => i.owners)).not.toContain(
      `${DEFAULT_REPOSITORY.id}/preview/${b}`,
    );
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([
      `https://${a}.preview.example.com/callback`,
    ]);
  });

  it("force-released while recovery inspects an item to adopt it: the scope is not made its owner", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain, { callbacks: [SHARED] });
    const scope = freshPr();
    // A run recorded as succeeded left a create intent (it died before its last save): recovery
    // inspects the item under the parent lease and adopts it into the scope.
    const connection = auth0Connection(domain);
    const receipt0 = emptyReceipt(DEFAULT_REPOSITORY, "preview", scope);
    await new R2ReceiptStore(env.RECEIPTS).write(
      {
        ...receipt0,
        intents: [
          {
            action: "create",
            line: "shared",
            op: "auth0.callbackUrl",
            connection,
            params: { client: APP_CLIENT, url: SHARED },
            key: SHARED,
            parent: appIdentity(domain),
            runId: "run-succeeded",
            at: Date.now(),
          },
        ],
        runs: [
          {
            id: "run-succeeded",
            action: "apply",
            status: "succeeded",
            startedAt: Date.now(),
            finishedAt: Date.now(),
            created: [],
          },
        ],
      },
      null,
    );
    let reads = 0;
    const releaseOnInspect = (inner: typeof fetch): typeof fetch => {
      return async (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        if ((init?.method ?? "GET") === "GET" && url.pathname.includes(`/clients/${APP_CLIENT}`)) {
          reads += 1;
          if (reads === 1) await forceReleaseScope(scope);
        }
        return inner(input, init);
      };
    };
    const recovering = engine({ wrapFetch: releaseOnInspect }).recover({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
    });
    await recovering.then(
      () => {},
      () => {},
    );
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(await ownedItems(domain)).toEqual([]);
  });
});
