/**
 * An acquire answered after the run's wait deadline (docs/design.md, "Lease protocol": the run's
 * side): the client's race ended first and the run was answered LOCK_HELD, so a grant in that
 * late answer is held by nobody client-side — never renewed, never released — and would refuse
 * every other run for its TTL and the lock-delay after it. The client keeps watching a call it
 * gave up on and gives back what it is granted (a release checked against holder and token); and
 * until that call is answered, the same holder does not ask for that lock again (a re-acquire
 * would be handed the very lease the give-back then ends). Under a ManualClock: the deadline
 * passes when the test says, and the late answer comes when the test lets the call through.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { Result } from "../../shared/errors";
import { LOCK_DELAY_MS } from "../../shared/lease-defaults";
import type { LeaseGrant } from "../../shared/schemas/lock";
import { type LockTarget, lockTarget } from "../../workers/locks/lock-target";
import { ScopeLease } from "../../workers/locks/scope-lock";
import { WaitDeadline } from "../../workers/locks/wait-deadline";
import { ManualClock } from "../helpers/clock";
import { overriding } from "../helpers/lock-overrides";
import { freshScopeKey, granted, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const BUDGET_MS = 50;

/** Lets the client's own async steps run (no real time passes, no timer fires). */
async function flush(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}

/**
 * The lock object reached only when the test lets the acquire through (a slow flight), and each
 * release noted once the object answered it.
 */
function slowFlight(inner: LockTarget, { fails = false }: { fails?: boolean } = {}) {
  let letThrough!: () => void;
  const gate = new Promise<void>((resolve) => {
    letThrough = resolve;
  });
  let answered!: Promise<Result<LeaseGrant>>;
  let released!: () => void;
  const releasedOnce = new Promise<void>((resolve) => {
    released = resolve;
  });
  const calls = { acquire: 0, release: 0 };
  const target = overriding(inner, {
    acquire: (req) => {
      calls.acquire += 1;
      // Failing: the object decides the call, and its answer is lost on the way back.
      answered = gate.then(async () => {
        const answer = await inner.acquire(req);
        if (fails) throw new Error("Network connection lost.");
        return answer;
      });
      return answered;
    },
    release: async (req) => {
      calls.release += 1;
      const answer = await inner.release(req);
      released();
      return answer;
    },
  });
  return { target, calls, letThrough, answer: () => answered, releasedOnce };
}

/** A waiting acquire of `target` whose budget the test spends at once; settles to what it said. */
async function pastDeadline(target: LockTarget, holder: string, clock: ManualClock) {
  const deadline = WaitDeadline.start(BUDGET_MS, clock);
  const acquire = ScopeLease.acquire(target, holder, { ttlMs: TTL_MS, wait: true, clock, deadline });
  const said = acquire.then(
    (lease) => ({ lease }),
    (error: unknown) => ({ error }),
  );
  await flush();
  clock.advance(BUDGET_MS);
  return said;
}

describe("an acquire answered after the run's wait deadline", () => {
  it("a free lock granted at once, its answer late: the run is told LOCK_HELD and the grant is given back; the next run is granted at once", async ({
    expect,
  }) => {
    const key = freshScopeKey("late-grant");
    const flight = slowFlight(lockTarget(env, key));
    const clock = new ManualClock();
    const said = await pastDeadline(flight.target, "run-late", clock);
    expect(said).toMatchObject({ error: { code: "LOCK_HELD" } });

    // The object now grants the lock at once (it is free): a full lease, not a provisional one.
    flight.letThrough();
    const late = granted(await flight.answer());
    expect(late.claimBy).toBeUndefined();
    await flight.releasedOnce;

    const state = await stub(key).read({ key });
    expect(state.held).toBe(false);
    expect(state.history.at(-1)).toMatchObject({
      holder: "run-late",
      token: late.token,
      transition: "released",
    });
    // Released in time, plainly: nobody waits for a lock-delay.
    const next = await stub(key).acquire({ key, holder: "run-next", ttlMs: TTL_MS });
    expect(next.ok).toBe(true);
  });

  it("a late refusal gives nothing back", async ({ expect }) => {
    const key = freshScopeKey("late-refusal");
    const other = granted(await stub(key).acquire({ key, holder: "run-other", ttlMs: 600_000 }));
    const flight = slowFlight(lockTarget(env, key));
    const clock = new ManualClock();
    expect(await pastDeadline(flight.target, "run-late", clock)).toMatchObject({
      error: { code: "LOCK_HELD" },
    });

    flight.letThrough();
    // Without waiting: the object may answer only LOCK_HELD; the late call gets a refusal.
    expect((await flight.answer()).ok).toBe(false);
    await flush();
    expect(flight.calls.release).toBe(0);
    expect((await stub(key).read({ key })).holder).toBe("run-other");
    await stub(key).release({ key, holder: "run-other", token: other.token });
  });

  it("the same holder does not ask for the lock while its given-up call is unanswered, and may once it was given back", async ({
    expect,
  }) => {
    const key = freshScopeKey("late-again");
    const flight = slowFlight(lockTarget(env, key));
    const clock = new ManualClock();
    await pastDeadline(flight.target, "run-late", clock);

    // Asked again before the first call's answer came: refused here, the object never asked. That
    // refusal does not vouch `untaken`: the first call may still be queued with the changes it
    // brought (write combining), which a holder may take and write.
    const again = ScopeLease.acquire(flight.target, "run-late", { ttlMs: TTL_MS, clock });
    await expect(again).rejects.toMatchObject({
      code: "LOCK_HELD",
      message: expect.stringContaining("has not been answered yet"),
    });
    await again.catch((err: { detail?: { untaken?: boolean } }) =>
      expect(err.detail?.untaken).toBeUndefined(),
    );
    expect(flight.calls.acquire).toBe(1);

    flight.letThrough();
    await flight.answer();
    await flight.releasedOnce;
    await flush();
    const lease = await ScopeLease.acquire(flight.target, "run-late", { ttlMs: TTL_MS, clock });
    expect((await stub(key).read({ key })).token).toBe(lease.token);
    await lease.release();
  });

  it("a given-up call whose answer never comes back stops guarding once any lease it could bring has ended: the deadline, a TTL and the lock-delay later", async ({
    expect,
  }) => {
    const key = freshScopeKey("late-never");
    // The gate never opens: the request that watched this call ended before its answer came.
    const flight = slowFlight(lockTarget(env, key));
    const clock = new ManualClock();
    const start = clock.now();
    await pastDeadline(flight.target, "run-gone", clock);
    const until = start + BUDGET_MS + TTL_MS + LOCK_DELAY_MS;

    clock.advance(until - 1 - clock.now());
    await expect(
      ScopeLease.acquire(lockTarget(env, key), "run-gone", { ttlMs: TTL_MS, clock }),
    ).rejects.toMatchObject({
      code: "LOCK_HELD",
      message: expect.stringContaining("has not been answered yet"),
    });
    clock.advance(1);
    const lease = await ScopeLease.acquire(lockTarget(env, key), "run-gone", { ttlMs: TTL_MS, clock });
    expect((await stub(key).read({ key })).token).toBe(lease.token);
    await lease.release();
  });

  for (const fails of [false, true])
    it(`a given-up call that reaches the object only after it stopped guarding, while the same holder holds the lease again: its answer ${fails ? "lost on the way back" : "(a re-acquire of that lease)"} gives nothing back`, async ({
      expect,
    }) => {
      const key = freshScopeKey(fails ? "late-lost-after" : "late-after");
      const flight = slowFlight(lockTarget(env, key), { fails });
      const clock = new ManualClock();
      const start = clock.now();
      await pastDeadline(flight.target, "run-slow", clock);
      // Any lease the call could have brought has ended by now: the holder may ask again, and does.
      clock.advance(start + BUDGET_MS + TTL_MS + LOCK_DELAY_MS - clock.now());
      const lease = await ScopeLease.acquire(lockTarget(env, key), "run-slow", { ttlMs: TTL_MS, clock });

      // The old call reaches the object now: the live lease's own holder asking again, answered as
      // a re-acquire with that lease's token.
      flight.letThrough();
      const late = await flight.answer().catch(() => null);
      if (!fails) expect(late && granted(late).token).toBe(lease.token);
      await flush();
      expect(flight.calls.release, "the run's live lease is not given back").toBe(0);
      expect(flight.calls.acquire, "nor asked for again to give it back").toBe(1);
      const state = await stub(key).read({ key });
      expect({ held: state.held, holder: state.holder, token: state.token }).toEqual({
        held: true,
        holder: "run-slow",
        token: lease.token,
      });
      await lease.release();
    });
});
