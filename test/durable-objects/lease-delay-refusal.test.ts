/**
 * What a refusal says during a lock-delay (docs/design.md, "Lock answers"): a lock whose last lease
 * expired is refused to a newcomer until the delay ends, and the refusal says so — it names no
 * waiting run when nobody waits, and no live holder when the lease has expired. Time is moved by
 * rewriting the lease's expiry (helpers/locks.ts), never by sleeping.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, it } from "vitest";
import {
  endLockDelay,
  expireLeaseJustNow,
  freshScopeKey,
  granted,
  rawStub,
  refused,
  stub,
  untilQueued,
} from "../helpers/locks";

const TTL_MS = 30_000;

describe("LOCK_HELD during a lock-delay", () => {
  it("with no waiters, after the expired row was freed, names the lock-delay and no waiting run", async ({
    expect,
  }) => {
    const key = freshScopeKey("quiet-freed");
    granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseJustNow(key);
    // A read notices the expiry: the row is freed and the lock-delay is kept in meta.
    expect((await stub(key).read({ key })).held).toBe(false);

    const error = refused(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(error.code).toBe("LOCK_HELD");
    expect(error.message).not.toMatch(/waiting run/);
    expect(error.message).toMatch(/lock-delay/);
    expect(error.detail?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(error.detail?.holder).toBeUndefined();
  });

  it("with no waiters, before anything freed the expired row, does not call its holder live", async ({
    expect,
  }) => {
    const key = freshScopeKey("quiet-row");
    granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseJustNow(key);

    const error = refused(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(error.code).toBe("LOCK_HELD");
    expect(error.message).not.toMatch(/waiting run/);
    expect(error.message).not.toMatch(/is held by/);
    expect(error.message).toMatch(/run-a/);
    expect(error.message).toMatch(/lock-delay/);
  });

  it("control: with a run waiting out the delay, a newcomer is told the lock goes to that run", async ({
    expect,
  }) => {
    const key = freshScopeKey("quiet-waiter");
    granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseJustNow(key);
    const waiting = stub(key).acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: 60_000,
    });
    await untilQueued(key, 1);

    const error = refused(await stub(key).acquire({ key, holder: "run-c", ttlMs: TTL_MS }));
    expect(error.message).toMatch(/being handed to a waiting run/);

    await endLockDelay(key);
    await runDurableObjectAlarm(rawStub(key));
    expect(granted(await waiting).holder).toBe("run-b");
  });
});
