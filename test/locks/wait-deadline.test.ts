/**
 * One bound for a run's whole wait (docs/design.md, "Lease protocol": the run's side): a deadline
 * computed once and carried to every acquire, each asking the lock object for what is left of it
 * (less the margin its refusal needs to come back), and the client's own call raced against it.
 * A call whose answer never comes ends at the deadline with LOCK_HELD naming the holder; a
 * combining waiter whose changes a live holder took waits on, bounded, for that holder's report.
 * Under a ManualClock: no real time passes but the lock objects' own calls.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { QueuedChange } from "../../shared/schemas/combine";
import { type LockTarget, lockTarget } from "../../workers/locks/lock-target";
import { ParentLease } from "../../workers/locks/parent-lock";
import { ScopeLease } from "../../workers/locks/scope-lock";
import { ANSWER_MARGIN_MS, WaitDeadline } from "../../workers/locks/wait-deadline";
import { ManualClock } from "../helpers/clock";
import { overriding } from "../helpers/lock-overrides";
import { freshScopeKey, granted, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const BUDGET_MS = 60_000;

/** A call the lock object never answers (a lost answer, a hung object). */
const never = <T>() => new Promise<T>(() => {});

/**
 * The outcome of `promise` if it settles within `ms` of real time — what is left after the clock
 * passed the deadline is one read of the real lock object — else "still waiting".
 */
async function settledWithin(promise: Promise<unknown>, ms = 2_000): Promise<unknown> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return Promise.race([outcome, scheduler.wait(ms).then(() => "still waiting")]);
}

/** Lets the client's own async steps run (no real time passes, no timer fires). */
async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

const change: QueuedChange = {
  id: "0\nhttps://b.example.com/1",
  action: "create",
  op: "auth0.callbacks",
  key: "https://b.example.com/1",
  params: { url: "https://b.example.com/1" },
  connection: "auth0-tenant.us.auth0.com",
  owner: "186853002/preview/pr-2",
  environment: "preview",
  runId: "run-b",
};

/** A lock held by `run-a`, and the same object with its acquire calls made by `acquire`. */
async function heldLock(calls: Partial<Pick<LockTarget, "acquire" | "acquireOrCombine" | "waiting">>) {
  const key = freshScopeKey("deadline");
  const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: 600_000 }));
  const target = overriding(lockTarget(env, key), calls);
  return { key, target, release: () => stub(key).release({ key, holder: "run-a", token: a.token }) };
}

describe("the run's wait deadline, at the client", () => {
  it("a waiting acquire whose answer never comes ends at the deadline: LOCK_HELD naming the holder, no budget left", async ({
    expect,
  }) => {
    const { key, target, release } = await heldLock({ acquire: never });
    const clock = new ManualClock();
    const start = clock.now();
    let settled = false;
    const acquire = ScopeLease.acquire(target, "run-b", {
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: BUDGET_MS,
      clock,
    });
    void acquire
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        settled = true;
      });
    clock.advance(BUDGET_MS - 1);
    await flush();
    expect(settled).toBe(false);
    clock.advance(1);
    const outcome = (await settledWithin(acquire)) as {
      error?: { code: string; detail?: Record<string, unknown> };
    };
    expect(outcome).toHaveProperty("error");
    expect(outcome.error?.code).toBe("LOCK_HELD");
    expect(outcome.error?.detail).toMatchObject({
      lock: key,
      holder: expect.objectContaining({ run: "run-a" }),
      budgetMs: BUDGET_MS,
      budgetLeftMs: 0,
    });
    expect(clock.now() - start).toBe(BUDGET_MS);
    await release();
  });

  it("every acquire sharing one deadline asks the object for what is left of it, less the margin for its answer", async ({
    expect,
  }) => {
    const asked: Array<number | undefined> = [];
    const key = freshScopeKey("deadline");
    const inner = lockTarget(env, key);
    const target = overriding(inner, {
      acquire: (req) => {
        asked.push(req.waitTimeoutMs);
        return inner.acquire(req);
      },
    });
    const clock = new ManualClock();
    const deadline = WaitDeadline.start(BUDGET_MS, clock);
    const opts = { ttlMs: TTL_MS, wait: true, clock, deadline };
    const first = await ScopeLease.acquire(target, "run-b", opts);
    await first.release();
    clock.advance(50_000);
    const second = await ScopeLease.acquire(target, "run-b", opts);
    await second.release();
    expect(asked).toEqual([BUDGET_MS - ANSWER_MARGIN_MS, 10_000 - 1_000]);
    // Past the deadline an acquire does not wait: it asks once, as a try.
    clock.advance(10_000);
    const late = await ScopeLease.acquire(target, "run-b", opts);
    await late.release();
    expect(asked).toHaveLength(3);
    expect(asked[2]).toBe(0);
  });

  it("a try after the deadline that finds the lock held says the run's wait budget is spent", async ({
    expect,
  }) => {
    const { key, target, release } = await heldLock({});
    const clock = new ManualClock();
    const deadline = WaitDeadline.start(BUDGET_MS, clock);
    clock.advance(BUDGET_MS);
    const error = await ScopeLease.acquire(target, "run-b", {
      ttlMs: TTL_MS,
      wait: true,
      clock,
      deadline,
    }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toMatchObject({
      code: "LOCK_HELD",
      detail: {
        lock: key,
        holder: expect.objectContaining({ run: "run-a" }),
        budgetMs: BUDGET_MS,
        budgetLeftMs: 0,
      },
    });
    expect((error as Error).message).toMatch(/wait budget of 60 s is spent/);
    // Nobody queued: a try leaves no place behind it.
    expect((await stub(key).read({ key })).waiters).toEqual([]);
    await release();
  });

  it("a combining waiter whose changes a live holder took waits past the deadline for the report, as long as the grace allows", async ({
    expect,
  }) => {
    const GRACE_MS = 30_000;
    for (const taken of [true, false]) {
      const { target, release } = await heldLock({
        acquireOrCombine: never,
        waiting: async () => ({ position: 1, holder: null, taken }),
      });
      const clock = new ManualClock();
      const start = clock.now();
      let settled = false;
      const acquire = ParentLease.acquireOrCombine(
        target,
        "run-b",
        { ttlMs: TTL_MS, wait: true, waitTimeoutMs: BUDGET_MS, clock, takenGraceMs: GRACE_MS },
        [change],
      );
      void acquire
        .then(
          () => {},
          () => {},
        )
        .finally(() => {
          settled = true;
        });
      clock.advance(BUDGET_MS);
      await flush();
      if (taken) {
        // The holder may be writing this run's changes: it waits on for the report.
        expect(settled).toBe(false);
        await clock.untilTimer();
        expect(clock.pending).toEqual([start + BUDGET_MS + GRACE_MS]);
        clock.advance(GRACE_MS);
      }
      const outcome = (await settledWithin(acquire)) as { error?: { code: string; detail?: object } };
      expect({ taken, code: outcome.error?.code }).toEqual({ taken, code: "LOCK_HELD" });
      // Never vouched untaken: the run's intents for these changes stay.
      expect(outcome.error?.detail).not.toHaveProperty("untaken");
      expect(clock.now() - start).toBe(taken ? BUDGET_MS + GRACE_MS : BUDGET_MS);
      await release();
    }
  });
});
