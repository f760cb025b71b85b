/**
 * Waiting inside the object (docs/design.md, "Lease protocol"): FIFO grants on release, and the wait
 * timeout.
 */
import { describe, it } from "vitest";
import { freshScopeKey, granted, refused, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const LONG_WAIT_MS = 60_000;

describe("waiting for a lease", () => {
  it("three waiters are granted in the order they asked, one per release", async ({ expect }) => {
    const key = freshScopeKey();
    // One stub: calls on it reach the object in the order they were made.
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const grantOrder: string[] = [];
    const ask = (holder: string) =>
      lock.acquire({ key, holder, ttlMs: TTL_MS, wait: true, waitTimeoutMs: LONG_WAIT_MS }).then((r) => {
        grantOrder.push(holder);
        return granted(r);
      });
    const b = ask("run-b");
    const c = ask("run-c");
    const d = ask("run-d");
    expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-b", "run-c", "run-d"]);

    await lock.release({ key, holder: "run-a", token: a.token });
    const bGrant = await b;
    expect(bGrant).toMatchObject({ holder: "run-b", token: 2 });
    expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-c", "run-d"]);

    await lock.release({ key, holder: "run-b", token: bGrant.token });
    const cGrant = await c;
    expect(cGrant).toMatchObject({ holder: "run-c", token: 3 });
    expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-d"]);

    await lock.release({ key, holder: "run-c", token: cGrant.token });
    expect(await d).toMatchObject({ holder: "run-d", token: 4 });
    expect(grantOrder).toEqual(["run-b", "run-c", "run-d"]);
  });

  it("a newcomer without wait does not jump the queue when the lock is released", async ({ expect }) => {
    const key = freshScopeKey();
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const b = lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS, wait: true, waitTimeoutMs: LONG_WAIT_MS });
    await lock.release({ key, holder: "run-a", token: a.token });
    const newcomer = refused(await lock.acquire({ key, holder: "run-z", ttlMs: TTL_MS }));
    expect(newcomer.detail).toMatchObject({ holder: { run: "run-b" } });
    expect(granted(await b).holder).toBe("run-b");
  });

  it("a waiter whose wait timeout passes is refused with LOCK_HELD naming the holder", async ({ expect }) => {
    const key = freshScopeKey();
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    // 20 ms is the object's own wait timer, not a sleep in the test.
    const error = refused(
      await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS, wait: true, waitTimeoutMs: 20 }),
    );
    expect(error.code).toBe("LOCK_HELD");
    expect(error.message).toContain("run-a");
    expect(error.detail).toMatchObject({ lock: key, holder: { run: "run-a", expiresAt: a.expiresAt } });
    // The timed-out waiter left the queue: releasing now frees the lock instead of granting it.
    const state = await lock.read({ key });
    expect(state.waiters).toEqual([]);
    await lock.release({ key, holder: "run-a", token: a.token });
    expect((await lock.read({ key })).held).toBe(false);
  });

  it("a waiter that names no timeout keeps waiting (the default, 120 s) until the release", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS, wait: true });
    // Several round trips later it is still queued rather than refused.
    for (let i = 0; i < 3; i++) {
      expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-b"]);
    }
    await lock.release({ key, holder: "run-a", token: a.token });
    expect(granted(await waiting)).toMatchObject({ holder: "run-b", token: a.token + 1 });
  });
});
