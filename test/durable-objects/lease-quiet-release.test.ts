/**
 * A quiet release (docs/design.md, "Fencing around a write", "Lock-delay"): a holder whose write
 * had an attempt go unanswered releases with `quiet: true`, since that attempt may still land. The
 * lease ends at once and the answer says whether it was live, exactly as a plain release's (it is
 * still the holder's check after the write), but nobody is granted the lock before the lock-delay
 * after the release. Time is moved by rewriting the stored quiet period (helpers/locks.ts).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, it } from "vitest";
import { LOCK_DELAY_MS } from "../../shared/lease-defaults";
import {
  armedAlarm,
  endLockDelay,
  expireLeaseJustNow,
  freshScopeKey,
  granted,
  metaValue,
  rawStub,
  refused,
  stub,
  untilQueued,
} from "../helpers/locks";

const TTL_MS = 30_000;
const WAIT = { ttlMs: TTL_MS, wait: true, waitTimeoutMs: 60_000 };

describe("a quiet release", () => {
  it("answers `released` for a live lease, and a waiter is granted only once the lock-delay after it has passed", async ({
    expect,
  }) => {
    const key = freshScopeKey("quiet-release");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = lock.acquire({ key, holder: "run-b", ...WAIT });
    await untilQueued(key, 1);

    const before = Date.now();
    const answer = await lock.release({ key, holder: "run-a", token: a.token, quiet: true });
    expect(answer).toMatchObject({ ok: true, value: { released: true, reason: "released" } });
    const state = await lock.read({ key });
    expect(state.held).toBe(false);
    expect(state.waiters.map((w) => w.holder)).toEqual(["run-b"]);
    expect(state.history.at(-1)).toMatchObject({
      transition: "released",
      holder: "run-a",
      note: expect.stringMatching(/may still land/),
    });
    // Quiet from the release, not from the lease's expiry (still most of a TTL away).
    const quiet = Number(await metaValue(key, "quiet_until"));
    expect(quiet).toBeGreaterThanOrEqual(before + LOCK_DELAY_MS);
    expect(quiet).toBeLessThanOrEqual(Date.now() + LOCK_DELAY_MS);
    expect(await armedAlarm(key)).toBeLessThanOrEqual(quiet);
    // An early alarm hands nothing over.
    await runDurableObjectAlarm(rawStub(key));
    expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-b"]);

    await endLockDelay(key);
    await runDurableObjectAlarm(rawStub(key));
    expect(granted(await waiting)).toMatchObject({ holder: "run-b", token: a.token + 1 });
  });

  it("refuses a newcomer saying why: the last lease was released after an unanswered write attempt", async ({
    expect,
  }) => {
    const key = freshScopeKey("quiet-refusal");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await lock.release({ key, holder: "run-a", token: a.token, quiet: true });

    const error = refused(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(error.code).toBe("LOCK_HELD");
    expect(error.message).toMatch(/lock-delay/);
    expect(error.message).toMatch(/released after a write attempt that got no answer/);
    expect(error.message).not.toMatch(/expired/);
    expect(error.detail?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it("of a lease past its expiry answers `released-expired`, quiet until the later of the two ends", async ({
    expect,
  }) => {
    const key = freshScopeKey("quiet-expired");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseJustNow(key);
    const before = Date.now();
    const answer = await lock.release({ key, holder: "run-a", token: a.token, quiet: true });
    expect(answer).toMatchObject({ ok: true, value: { released: true, reason: "released-expired" } });
    expect(Number(await metaValue(key, "quiet_until"))).toBeGreaterThanOrEqual(before + LOCK_DELAY_MS);
    expect(refused(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS })).code).toBe("LOCK_HELD");
  });

  it("control: the same release without `quiet` hands the lock to the waiter at once", async ({ expect }) => {
    const key = freshScopeKey("plain-release");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = lock.acquire({ key, holder: "run-b", ...WAIT });
    await untilQueued(key, 1);
    await lock.release({ key, holder: "run-a", token: a.token });
    expect(granted(await waiting)).toMatchObject({ holder: "run-b" });
    expect((await lock.read({ key })).history.find((h) => h.transition === "released")?.note).toBeUndefined();
  });
});
