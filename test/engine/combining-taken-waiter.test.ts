/**
 * A combining waiter whose changes the holder took must never drop their intents on doubt
 * (docs/design.md, "Write combining: the lock object's side"). Its wait timeout passes while the
 * holder writes for it: the lock object keeps it waiting for the report, and if its call fails
 * anyway, its intents stay for its rollback or a later recovery. Either way nothing is left on the
 * provider that no receipt records.
 *
 * The holder stalls at its last step before the write (a fault hook) until the waiter's short wait
 * timeout has passed; the holder took the waiter's changes before that step, always.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import type { FaultHook } from "../../workers/engine/deps";
import type { Engine } from "../../workers/engine/engine";
import { lockStub } from "../../workers/locks/lock-target";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import {
  appLockKey,
  durableIntents,
  expectLocksFree,
  freshPr,
  holdAppLock,
  receipt,
  untilWaiters,
} from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";
import { StepClock } from "../reliability/harness";

/** The waiter's wait timeout: long enough for the holder to take its changes first. */
const WAITER_TIMEOUT_MS = 1_000;
/** The holder's lease in the unknown-outcome case: longer than its stall and its write, short to wait out. */
const HOLDER_TTL_SECONDS = 8;

function apply(e: Engine, scope: string, plan: Plan, waitTimeoutMs = 30_000): Promise<RunResult> {
  return e.apply({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    plan,
    wait: true,
    waitTimeoutMs,
  });
}

/** The holder's hook: before its write, wait until the waiter's timeout is long past. */
const stallPastTheWaitersTimeout: FaultHook = async (point) => {
  if (point === "after-intent") await scheduler.wait(WAITER_TIMEOUT_MS * 2);
};

/** Holder run `a` and waiter run `b` queued in that order behind a lock held by hand, then let go. */
async function takenWaiter(holderEngine: () => Engine) {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  // The plan registers the tenant's connection, which an engine reads when it is made.
  const plan = previewPlan(domain);
  const [holder, waiter] = [holderEngine(), testEngine()];
  const [a, b] = [freshPr(), freshPr()];
  const key = await appLockKey(domain);
  const held = await holdAppLock(domain);
  const first = apply(holder, a, plan);
  await untilWaiters(key, 1);
  const second = apply(waiter, b, plan, WAITER_TIMEOUT_MS);
  await untilWaiters(key, 2);
  await held.release();
  return { domain, a, b, key, first, second };
}

async function ownersOf(domain: string, url: string): Promise<string[]> {
  const lock = await appLockKey(domain);
  const record = await lockStub(env, lock).ownership({ key: lock });
  return record.items.find((i) => i.op === "auth0.callbackUrl" && i.key === url)?.owners ?? [];
}

const callbackOf = (scope: string) => `https://${scope}.preview.example.com/callback`;

describe("a combining waiter whose changes were taken", () => {
  it("its wait timeout passes while the holder writes for it: it waits for the report and records what was written", async () => {
    const { domain, a, b, first, second } = await takenWaiter(() =>
      testEngine({ faults: stallPastTheWaitersTimeout }),
    );
    const [ra, rb] = await Promise.all([first, second]);
    expect(ra.run.status).toBe("succeeded");
    expect(rb.run.status).toBe("succeeded");
    expect(rb.lines.map((l) => [l.id, l.result, l.writtenBy])).toEqual([
      ["callback", "created", ra.run.id],
      ["logout", "created", ra.run.id],
      ["origin", "created", ra.run.id],
    ]);
    const stored = await receipt("preview", b);
    expect(stored.ledger.map((e) => e.line).sort()).toEqual(["callback", "logout", "origin"]);
    expect(stored.intents).toEqual([]);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([callbackOf(a), callbackOf(b)]);
    await expectLocksFree(expect, domain, [a, b]);
  });

  it("the holder's write may have landed: its lease ends quietly, the waiter is granted after the lock-delay and writes its own; nothing is left that no receipt names", async () => {
    // The holder's PATCH reaches the emulator, but every answer to it is lost (4 attempts); the
    // holder's clock steps, so its retry backoff costs no time. Its outcome is unknown: it does not
    // report the taken changes back as unwritten, and its parent lease (still held) ends by a quiet
    // release (docs/design.md, "Fencing around a write": the lock-delay follows the release). The
    // waiter whose changes it took is not timed out while they are taken: it is granted once the
    // lock-delay after that release has passed, and writes its changes itself.
    let lost = 4;
    const answersLost = (inner: typeof fetch): typeof fetch => {
      return async (input, init) => {
        const response = await inner(input, init);
        if ((init?.method ?? "GET") === "PATCH" && lost > 0) {
          lost -= 1;
          throw new TypeError("Network connection lost.");
        }
        return response;
      };
    };
    // A short lease for the holder, should it be left to expire: the waiter is granted only once
    // the lease ended and its lock-delay passed, real time in the lock object.
    const holder = () =>
      testEngine({
        faults: stallPastTheWaitersTimeout,
        wrapFetch: answersLost,
        clock: new StepClock(),
        bindings: { LEASE_TTL_SECONDS: String(HOLDER_TTL_SECONDS) },
      });
    const { domain, a, b, first, second } = await takenWaiter(holder);
    const [ra, rb] = await Promise.all([first, second]);
    expect(ra.run.status).toBe("failed");
    expect(ra.lines.find((l) => l.id === "callback")?.error?.code).toBe("LOCK_LOST");
    expect(rb.run.status).toBe("succeeded");
    // The waiter's entries are on the provider, owned by it and in its ledger.
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toContain(callbackOf(b));
    expect(await ownersOf(domain, callbackOf(b))).toEqual([`${DEFAULT_REPOSITORY.id}/preview/${b}`]);
    expect(await durableIntents("preview", b)).toEqual([]);
    // The holder kept its intents (its write may have landed); its recovery removes what it owned.
    expect((await durableIntents("preview", a)).length).toBeGreaterThan(0);
    await testEngine().recover({ repository: DEFAULT_REPOSITORY, environment: "preview", scope: a });
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks ?? []).toEqual([callbackOf(b)]);
    expect(await ownersOf(domain, callbackOf(a))).toEqual([]);
    await expectLocksFree(expect, domain, [a, b]);
  }, 120_000);
});
