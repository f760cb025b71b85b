/**
 * An acquire whose answer is lost (docs/design.md, "Lease protocol": a lost answer is given back):
 * the object may have granted the lease (or taken the claim) before the transport failed, and then
 * nobody holds it client-side: never renewed, never released, the lock refuses everyone else until
 * its expiry and the lock-delay after it. The client asks again with the same holder (a live lease
 * of that holder is answered with its own token) and releases what it is answered. A lost answer is
 * made deterministic here: the wrapped call reaches the real object, then throws.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { SponsonError } from "../../shared/errors";
import type { QueuedChange } from "../../shared/schemas/combine";
import { OVERLOAD_ATTEMPTS } from "../../workers/locks/acquire-loop";
import { type LockTarget, lockTarget } from "../../workers/locks/lock-target";
import { ParentLease } from "../../workers/locks/parent-lock";
import { ScopeLease } from "../../workers/locks/scope-lock";
import { StepClock } from "../helpers/clock";
import { overriding } from "../helpers/lock-overrides";
import { freshScopeKey, granted, stub, untilQueued } from "../helpers/locks";

const TTL_MS = 30_000;

const connectionLost = () => new Error("Network connection lost.");

/** The first `lost` acquires reach the object and then throw, as if the answer never came back. */
function answerLost(inner: LockTarget, lost = 1) {
  const calls = { acquire: 0, release: 0 };
  const target = overriding(inner, {
    acquire: async (req) => {
      calls.acquire += 1;
      const answer = await inner.acquire(req);
      if (calls.acquire <= lost) throw connectionLost();
      return answer;
    },
    release: (req) => {
      calls.release += 1;
      return inner.release(req);
    },
  });
  return { target, calls };
}

async function rejected(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => null,
    (err: unknown) => err,
  );
}

/** Another run's try without waiting: the lock is free when it is granted. */
async function takenAtOnce(key: string, holder = "run-next"): Promise<ScopeLease | SponsonError> {
  try {
    return await ScopeLease.acquire(lockTarget(env, key), holder, { ttlMs: TTL_MS });
  } catch (err) {
    if (err instanceof SponsonError) return err;
    throw err;
  }
}

describe("an acquire whose answer is lost", () => {
  it("without waiting: the grant it made is released, and the next run is granted at once", async ({
    expect,
  }) => {
    const key = freshScopeKey("lost");
    const { target, calls } = answerLost(lockTarget(env, key));
    const error = await rejected(ScopeLease.acquire(target, "run-a", { ttlMs: TTL_MS }));
    // The caller still hears the failure: it does not hold the lease.
    expect(String(error)).toContain("Network connection lost");
    // One ask, one ask again (a re-acquire: run-a's own token, recorded as a renewal), one release.
    expect(calls).toEqual({ acquire: 2, release: 1 });
    const history = (await stub(key).read({ key })).history.map((h) => [h.transition, h.holder]);
    expect(history).toEqual([
      ["acquired", "run-a"],
      ["renewed", "run-a"],
      ["released", "run-a"],
    ]);
    const next = await takenAtOnce(key);
    expect(next).toBeInstanceOf(ScopeLease);
    await (next as ScopeLease).release();
  });

  it("control: a lease nobody gives back refuses the next run LOCK_HELD naming the lost holder", async ({
    expect,
  }) => {
    const key = freshScopeKey("lost-control");
    // What the lost answer leaves when nobody asks again: the object's grant, held by nobody.
    granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const next = await takenAtOnce(key);
    expect(next).toMatchObject({ code: "LOCK_HELD", detail: { holder: { run: "run-a" } } });
  });

  it("of a waiting acquire granted at once: released too", async ({ expect }) => {
    const key = freshScopeKey("lost-wait");
    const { target } = answerLost(lockTarget(env, key));
    const error = await rejected(
      ScopeLease.acquire(target, "run-a", { ttlMs: TTL_MS, wait: true, waitTimeoutMs: 60_000 }),
    );
    expect(String(error)).toContain("Network connection lost");
    const next = await takenAtOnce(key);
    expect(next).toBeInstanceOf(ScopeLease);
    await (next as ScopeLease).release();
  });

  it("of a claim: the claimed grant is released and the lock is free", async ({ expect }) => {
    const key = freshScopeKey("lost-claim");
    const inner = lockTarget(env, key);
    const first = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const target = overriding(inner, {
      claim: async (req) => {
        await inner.claim(req);
        throw connectionLost();
      },
    });
    const pending = rejected(
      ScopeLease.acquire(target, "run-b", { ttlMs: TTL_MS, wait: true, waitTimeoutMs: 60_000 }),
    );
    await untilQueued(key, 1);
    await stub(key).release({ key, holder: "run-a", token: first.token });
    expect(String(await pending)).toContain("Network connection lost");
    const history = (await stub(key).read({ key })).history.map((h) => [h.transition, h.holder]);
    expect(history.slice(-3)).toEqual([
      ["claimed", "run-b"],
      ["renewed", "run-b"],
      ["released", "run-b"],
    ]);
    const next = await takenAtOnce(key);
    expect(next).toBeInstanceOf(ScopeLease);
    await (next as ScopeLease).release();
  });

  it("of a parent lock's acquire: released the same way", async ({ expect }) => {
    const key = `_locks/${crypto.randomUUID().replaceAll("-", "")}`;
    const { target } = answerLost(lockTarget(env, key, "auth0:lost.example:client:x"));
    const error = await rejected(ParentLease.acquire(target, "run-a", { ttlMs: TTL_MS }));
    expect(String(error)).toContain("Network connection lost");
    expect((await stub(key).read({ key })).held).toBe(false);
  });

  it("of a combining acquire granted at once: released the same way", async ({ expect }) => {
    const key = freshScopeKey("lost-combine");
    const inner = lockTarget(env, key);
    let lost = 0;
    const target = overriding(inner, {
      acquireOrCombine: async (req) => {
        const answer = await inner.acquireOrCombine(req);
        if (lost++ === 0) throw connectionLost();
        return answer;
      },
    });
    const url = "https://pr-1.preview.example.com/callback";
    const changes: QueuedChange[] = [
      {
        id: `0\n${url}`,
        action: "create",
        op: "auth0.callbacks",
        key: url,
        params: { url },
        connection: "auth0-tenant.us.auth0.com",
        owner: "186853002/preview/pr-1",
        environment: "preview",
        runId: "run-a",
      },
    ];
    const error = await rejected(
      ParentLease.acquireOrCombine(
        target,
        "run-a",
        { ttlMs: TTL_MS, wait: true, waitTimeoutMs: 60_000 },
        changes,
      ),
    );
    expect(String(error)).toContain("Network connection lost");
    const next = await takenAtOnce(key);
    expect(next).toBeInstanceOf(ScopeLease);
    await (next as ScopeLease).release();
  });

  it("never releases a lease someone else holds", async ({ expect }) => {
    const key = freshScopeKey("lost-other");
    const other = granted(await stub(key).acquire({ key, holder: "run-z", ttlMs: TTL_MS }));
    // The request is lost on the way: the object never saw it.
    const inner = lockTarget(env, key);
    let asks = 0;
    const target = overriding(inner, {
      acquire: (req) => (++asks === 1 ? Promise.reject(connectionLost()) : inner.acquire(req)),
    });
    const error = await rejected(ScopeLease.acquire(target, "run-a", { ttlMs: TTL_MS }));
    expect(String(error)).toContain("Network connection lost");
    // Asked again: LOCK_HELD by run-z, so run-a holds nothing there and nothing is released.
    expect(asks).toBe(2);
    expect(await stub(key).read({ key })).toMatchObject({ held: true, holder: "run-z", token: other.token });
    expect((await stub(key).renew({ key, holder: "run-z", token: other.token })).ok).toBe(true);
  });

  it("that never reached the object leaves the lock as it was: free", async ({ expect }) => {
    const key = freshScopeKey("lost-unsent");
    const inner = lockTarget(env, key);
    let asks = 0;
    const target = overriding(inner, {
      acquire: (req) => (++asks === 1 ? Promise.reject(connectionLost()) : inner.acquire(req)),
    });
    await rejected(ScopeLease.acquire(target, "run-a", { ttlMs: TTL_MS }));
    const state = await stub(key).read({ key });
    expect(state.held).toBe(false);
    // The grant the ask again made (the one the lost request would have made) was released in time.
    expect(state.history.map((h) => h.transition)).toEqual(["acquired", "released"]);
  });

  it("warns, naming the lock and the holder, when asking again fails too", async ({ expect }) => {
    const key = freshScopeKey("lost-twice");
    const { target } = answerLost(lockTarget(env, key), 2);
    const warnings: string[] = [];
    await rejected(
      ScopeLease.acquire(target, "run-a", { ttlMs: TTL_MS, onWarning: (m) => warnings.push(m) }),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(key);
    expect(warnings[0]).toContain("run-a");
  });

  it("control: an overloaded object reached nothing, so nothing is asked again after the last refusal", async ({
    expect,
  }) => {
    const key = freshScopeKey("lost-overloaded");
    const inner = lockTarget(env, key);
    let asks = 0;
    const target = overriding(inner, {
      acquire: () => {
        asks += 1;
        return Promise.reject(Object.assign(new Error("overloaded"), { overloaded: true, retryable: true }));
      },
    });
    const error = await rejected(
      ScopeLease.acquire(target, "run-a", { ttlMs: TTL_MS, clock: new StepClock() }),
    );
    expect(error).toMatchObject({ code: "LOCK_UNAVAILABLE" });
    expect(asks).toBe(OVERLOAD_ATTEMPTS);
  });
});
