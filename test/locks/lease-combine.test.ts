/**
 * The client side of write combining (docs/design.md, "Write combining: the lock object's side"):
 * ParentLease.acquireOrCombine with the claim and re-join behaviour of ParentLease.acquire, and the holder's
 * takeQueued / reportCombined fenced like changeOwners. Real lock objects behind the targets.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { SponsonError } from "../../shared/errors";
import type { CombinedOutcome, QueuedChange } from "../../shared/schemas/combine";
import type { LeaseOptions } from "../../workers/locks/lease-options";
import { type LockTarget, lockTarget } from "../../workers/locks/lock-target";
import { ParentLease } from "../../workers/locks/parent-lock";
import { checkLockHistory, objectHistory } from "../helpers/lock-history";
import { overriding } from "../helpers/lock-overrides";
import { expireLeaseNow, freshScopeKey, rawStub, stub, withState } from "../helpers/locks";

const OPTS: LeaseOptions = { ttlMs: 30_000, wait: true, waitTimeoutMs: 60_000 };
const OP = "auth0.callbacks";
const OWNER_B = "186853002/preview/pr-2";
/** The holder's repository, told to waiters with their answers. */
const REPOSITORY = 186853002;

function change(url: string, line = 0): QueuedChange {
  return {
    id: `${line}\n${url}`,
    action: "create",
    op: OP,
    key: url,
    params: { url },
    connection: "auth0-tenant.us.auth0.com",
    owner: OWNER_B,
    environment: "preview",
    runId: "run-b",
  };
}
const written = (c: QueuedChange): CombinedOutcome => ({ id: c.id, outcome: "written" });

/**
 * The real object behind a target that takes a fresh stub for every call (a stub that saw its
 * object reset is not reused), counting the combining acquires that reach it.
 */
type CountingTarget = LockTarget & { acquires: () => number; claimWith: LockTarget["claim"] | null };

function countingTarget(key = freshScopeKey("combine-client")): CountingTarget {
  // lockTarget takes a fresh stub for every call.
  const real = lockTarget(env, key);
  let acquires = 0;
  const state = {
    /** Replaces the next claim, once. */
    claimWith: null as LockTarget["claim"] | null,
    acquires: () => acquires,
  };
  const target = overriding(real, {
    claim: (req) => {
      const scripted = state.claimWith;
      state.claimWith = null;
      return scripted ? scripted(req) : real.claim(req);
    },
    acquireOrCombine: (req) => {
      acquires += 1;
      return real.acquireOrCombine(req);
    },
  });
  return withState(target, state);
}

/** Reads the object until `holder` is queued; each read is a round trip, not a timer. */
async function untilQueued(key: string, holder: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if ((await stub(key).read({ key })).waiters.some((w) => w.holder === holder)) return;
  }
  throw new Error(`${holder} never queued on ${key}`);
}

/** The holder reports run-b's `done` written (and owned by it) and `back` returned with `error`. */
function writtenOneReturnedOne(
  holder: ParentLease,
  done: QueuedChange,
  back: QueuedChange,
  error: { code: "FORBIDDEN" | "PROVIDER_ERROR"; message: string },
) {
  return holder.reportCombined(
    [{ waiter: "run-b", applied: [written(done)], returned: [{ id: back.id, error }] }],
    [{ action: "add", op: OP, key: done.key, owner: OWNER_B }],
    REPOSITORY,
  );
}

describe("ParentLease.acquireOrCombine and the holder's combining calls", () => {
  it("the holder takes a waiter's changes and reports them: the waiter gets no lease, only the answer", async ({
    expect,
  }) => {
    const target = countingTarget();
    const key = target.key;
    const a = await ParentLease.acquireOrCombine(target, "run-a", OPTS, []);
    expect(a.combined).toBeNull();
    const holder = a.lease as ParentLease;
    expect(holder).toBeInstanceOf(ParentLease);

    const changes = [change("https://b.example.com/1"), change("https://b.example.com/2", 1)];
    const b = ParentLease.acquireOrCombine(target, "run-b", OPTS, changes);
    await untilQueued(key, "run-b");
    const taken = await holder.takeQueued();
    expect(taken).toEqual([{ waiter: "run-b", changes }]);
    await holder.reportCombined(
      [{ waiter: "run-b", applied: changes.map(written), returned: [] }],
      changes.map((c) => ({ action: "add" as const, op: OP, key: c.key, owner: OWNER_B })),
      REPOSITORY,
    );
    expect(await b).toEqual({
      lease: null,
      combined: { by: "run-a", repository: REPOSITORY, token: holder.token, outcomes: changes.map(written) },
      taken: true,
    });
    expect((await stub(key).ownership({ key })).items.map((i) => i.owners)).toEqual([[OWNER_B], [OWNER_B]]);
    await holder.release();
    const state = await stub(key).read({ key });
    expect(state).toMatchObject({ held: false, waiters: [] });
    expect(checkLockHistory(objectHistory(state.history), { window: true })).toEqual([]);
  });

  it("a waiter with a returned change is granted its own lease, claimed, and told what was written for it", async ({
    expect,
  }) => {
    const target = countingTarget();
    const key = target.key;
    const holder = (await ParentLease.acquireOrCombine(target, "run-a", OPTS, [])).lease as ParentLease;
    const [done, back] = [change("https://b.example.com/1"), change("https://b.example.com/2", 1)];
    const b = ParentLease.acquireOrCombine(target, "run-b", OPTS, [done, back]);
    await untilQueued(key, "run-b");
    await holder.takeQueued();
    await writtenOneReturnedOne(holder, done, back, {
      code: "FORBIDDEN",
      message: "policy refuses this URL",
    });
    await holder.release();
    const answer = await b;
    expect(answer.combined).toEqual({
      by: "run-a",
      repository: REPOSITORY,
      token: holder.token,
      outcomes: [written(done)],
    });
    const lease = answer.lease as ParentLease;
    expect(lease.token).toBe(holder.token + 1);
    const history = (await stub(key).read({ key })).history.map((h) => [h.transition, h.holder]);
    expect(history).toContainEqual(["claimed", "run-b"]);
    await lease.release();
  });

  it("a claim that comes too late re-joins, and the lease it gets still carries what was written for it", async ({
    expect,
  }) => {
    const target = countingTarget();
    const key = target.key;
    const holder = (await ParentLease.acquireOrCombine(target, "run-a", OPTS, [])).lease as ParentLease;
    const [done, back] = [change("https://b.example.com/1"), change("https://b.example.com/2", 1)];
    target.claimWith = async (req) => {
      // The claim window passes before the claim arrives (rewritten, not slept).
      await expireLeaseNow(key);
      await runDurableObjectAlarm(rawStub(key));
      return lockTarget(env, key).claim(req);
    };
    const b = ParentLease.acquireOrCombine(target, "run-b", OPTS, [done, back]);
    await untilQueued(key, "run-b");
    await holder.takeQueued();
    await writtenOneReturnedOne(holder, done, back, { code: "PROVIDER_ERROR", message: "refused" });
    await holder.release();
    const answer = await b;
    // Granted, lapsed, re-joined and granted afresh: two acquires by run-b, and the answer kept.
    expect(target.acquires()).toBe(3);
    expect(answer.lease?.token).toBe(holder.token + 2);
    expect(answer.combined).toEqual({
      by: "run-a",
      repository: REPOSITORY,
      token: holder.token,
      outcomes: [written(done)],
    });
    const history = (await stub(key).read({ key })).history.map((h) => [h.transition, h.holder, h.token]);
    expect(history).toContainEqual(["claim-lapsed", "run-b", holder.token + 1]);
    await answer.lease?.release();
  });

  it("an object restart after the take: the waiter re-joins, and the report that follows answers it", async ({
    expect,
  }) => {
    const target = countingTarget();
    const key = target.key;
    const holder = (await ParentLease.acquireOrCombine(target, "run-a", OPTS, [])).lease as ParentLease;
    const changes = [change("https://b.example.com/1")];
    const b = ParentLease.acquireOrCombine(target, "run-b", OPTS, changes);
    await untilQueued(key, "run-b");
    expect(await holder.takeQueued()).toHaveLength(1);
    const aborted = await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
      state.abort("deploy");
    }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(aborted).toMatchObject({ durableObjectReset: true });
    // The client asks again with the same holder and changes, and is queued afresh.
    await untilQueued(key, "run-b");
    expect(target.acquires()).toBe(3);

    await holder.reportCombined(
      [{ waiter: "run-b", applied: changes.map(written), returned: [] }],
      [{ action: "add", op: OP, key: changes[0]?.key ?? "", owner: OWNER_B }],
      REPOSITORY,
    );
    expect(await b).toEqual({
      lease: null,
      combined: { by: "run-a", repository: REPOSITORY, token: holder.token, outcomes: changes.map(written) },
      taken: true,
    });
    await holder.release();
  });

  it("takeQueued and reportCombined on a lease the object no longer honours throw LOCK_LOST and mark it lost", async ({
    expect,
  }) => {
    const target = countingTarget();
    const key = target.key;
    const holder = (await ParentLease.acquireOrCombine(target, "run-a", OPTS, [])).lease as ParentLease;
    await expireLeaseNow(key);
    const thrown = await holder.takeQueued().then(
      () => null,
      (err: unknown) => err,
    );
    expect(thrown).toBeInstanceOf(SponsonError);
    expect(thrown).toMatchObject({ code: "LOCK_LOST" });
    expect(() => holder.assertHeld()).toThrow(/lost/);
    const report = await holder.reportCombined([], [], REPOSITORY).then(
      () => null,
      (err: unknown) => err,
    );
    expect(report).toMatchObject({ code: "LOCK_LOST" });
    await holder.release();
  });
});
