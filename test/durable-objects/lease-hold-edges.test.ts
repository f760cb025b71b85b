/**
 * Holds at the edges of the lease protocol (docs/design.md, "Lease protocol: holds"), each found by
 * a review: a hold blocks only the next grant — a lease still ends and a waiter kept past its wait
 * timeout is still refused; a queued run is told it waits for the hold; Retry-After is never
 * earlier than the moment the lock can be granted.
 */
import { describe, it } from "vitest";
import type { QueuedChange } from "../../shared/schemas/combine";
import { freshScopeKey, granted, refused, stub, untilQueued } from "../helpers/locks";

const TTL_MS = 30_000;
const HOUR_MS = 3_600_000;
/** Short enough to pass within the test; the object's own timer refuses (or keeps) the waiter. */
const SHORT_WAIT_MS = 200;

function changeOf(runId: string): QueuedChange {
  return {
    id: "0\nhttps://b.example/cb",
    action: "create",
    op: "auth0.callbacks",
    key: "https://b.example/cb",
    params: { url: "https://b.example/cb" },
    connection: "auth0-tenant.us.auth0.com",
    owner: "1/preview/pr-2",
    environment: "preview",
    runId,
  };
}

describe("holds at the edges of the lease protocol", () => {
  it("a waiter kept past its timeout (its changes taken) is refused when that lease ends, hold or not", async ({
    expect,
  }) => {
    const key = freshScopeKey("hold-overdue");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = lock.acquireOrCombine({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: SHORT_WAIT_MS,
      changes: [changeOf("run-b")],
    });
    await untilQueued(key, 1);
    // The holder takes run-b's changes, then an admin holds the lock.
    expect(granted(await lock.takeQueued({ key, holder: "run-a", token: a.token })).waiters).toHaveLength(1);
    granted(await lock.hold({ key, reason: "maintenance", by: "alice-admin", ttlMs: HOUR_MS }));
    try {
      // run-b's wait timeout passes while the holder has its changes: it is kept, as designed.
      await scheduler.wait(SHORT_WAIT_MS * 3);
      expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-b"]);
      // The holder releases without a report: nothing of run-b's is taken any more.
      granted(await lock.release({ key, holder: "run-a", token: a.token }));
      expect((await lock.read({ key })).waiters).toEqual([]);
      expect(refused(await waiting).code).toBe("LOCK_HELD");
    } finally {
      await lock.unhold({ key, actor: "alice-admin" });
    }
  });

  it("a run queued behind a hold is told, in its waiting report, that it waits for the hold", async ({
    expect,
  }) => {
    const key = freshScopeKey("hold-waiting");
    const lock = stub(key);
    const set = granted(await lock.hold({ key, reason: "IdP migration", by: "alice-admin", ttlMs: HOUR_MS }));
    const pending = lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS, wait: true, waitTimeoutMs: 60_000 });
    await untilQueued(key, 1);
    const report = await lock.waiting({ key, holder: "run-b" });
    expect(report.position).toBe(1);
    expect(report.holder).toEqual({
      hold: { reason: "IdP migration", by: "alice-admin", until: set.hold?.until },
    });
    await lock.unhold({ key, actor: "alice-admin" });
    const grant = granted(await pending);
    granted(await lock.release({ key, holder: "run-b", token: grant.token }));
  });

  it("Retry-After under a hold shorter than the live lease is the lease's end, not the hold's", async ({
    expect,
  }) => {
    const key = freshScopeKey("hold-retry");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: 2 * HOUR_MS }));
    granted(await lock.hold({ key, reason: "short freeze", by: "alice-admin", ttlMs: 60_000 }));
    const error = refused(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(error.code).toBe("LOCK_HELD");
    expect(error.detail?.holder).toMatchObject({ hold: { reason: "short freeze" } });
    const leaseLeftS = Math.floor((a.expiresAt - Date.now()) / 1000);
    expect(error.detail?.retryAfterSeconds).toBeGreaterThanOrEqual(leaseLeftS);
    await lock.unhold({ key, actor: "alice-admin" });
    granted(await lock.release({ key, holder: "run-a", token: a.token }));
  });
});
