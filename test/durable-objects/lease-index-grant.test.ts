/**
 * The held-lock index lists every held lease from its grant (docs/storage.md, "R2 held-lock
 * index"): a view of the locks is true from a lease's first second, a short lease included. Its
 * price is one R2 put per lease on a lock that had gone idle; a lock taken again while its entry
 * stands costs none (the entry is deleted only by the alarm or a read of the free lock).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { heldIndexKey } from "../../shared/lock-index";
import { freshScopeKey, granted, rawStub, stub } from "../helpers/locks";

const TTL_MS = 30_000;

/**
 * The entry's R2 version once the object's write lands within `ms` (null: none), polled (a timer
 * turn lets calls still being sent reach the object); the bound is only how long a test waits for
 * an entry never written.
 */
async function entrySoon(key: string, ms = 2_000): Promise<string | null> {
  const deadline = Date.now() + ms;
  do {
    const head = await env.RECEIPTS.head(heldIndexKey(key));
    if (head !== null) return head.version;
    await scheduler.wait(5);
  } while (Date.now() < deadline);
  return null;
}

describe("the held-lock index and short leases", () => {
  it("a lease taken and released at once is listed from its grant", async ({ expect }) => {
    const key = freshScopeKey("short");
    const lock = stub(key);
    const g = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    expect(await entrySoon(key)).not.toBeNull();
    granted(await lock.release({ key, holder: "run-a", token: g.token }));
    expect((await lock.read({ key })).history.map((h) => h.transition)).toEqual(["acquired", "released"]);
  });

  it("a lock taken again while its entry stands costs no second put", async ({ expect }) => {
    const key = freshScopeKey("again");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const first = await entrySoon(key);
    expect(first).not.toBeNull();
    granted(await lock.release({ key, holder: "run-a", token: a.token }));
    // The next run's lease, renewal and release: the entry written for the first is never rewritten.
    const b = granted(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    granted(await lock.renew({ key, holder: "run-b", token: b.token }));
    granted(await lock.release({ key, holder: "run-b", token: b.token }));
    const c = granted(await lock.acquire({ key, holder: "run-c", ttlMs: TTL_MS }));
    // A read waits for every index write the transitions queued (and keeps the held lock's entry).
    expect((await lock.read({ key })).holder).toBe("run-c");
    expect((await env.RECEIPTS.head(heldIndexKey(key)))?.version).toBe(first);
    granted(await lock.release({ key, holder: "run-c", token: c.token }));
  });

  it("a lease another run asks for is listed: by the refusal's answer, and behind a waiter", async ({
    expect,
  }) => {
    const refusedKey = freshScopeKey("refused");
    granted(await stub(refusedKey).acquire({ key: refusedKey, holder: "run-a", ttlMs: TTL_MS }));
    const refusal = await stub(refusedKey).acquire({ key: refusedKey, holder: "run-b", ttlMs: TTL_MS });
    expect(refusal.ok).toBe(false);
    // Written before the refusal was answered: a listing right after it names the holder.
    expect(await env.RECEIPTS.head(heldIndexKey(refusedKey))).not.toBeNull();

    const queuedKey = freshScopeKey("queued");
    const a = granted(await stub(queuedKey).acquire({ key: queuedKey, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = stub(queuedKey).acquire({
      key: queuedKey,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: 30_000,
    });
    expect(await entrySoon(queuedKey)).not.toBeNull();
    granted(await stub(queuedKey).release({ key: queuedKey, holder: "run-a", token: a.token }));
    granted(await waiting);
  });

  it("a held lock is listed once its alarm or a read has run", async ({ expect }) => {
    const byAlarm = freshScopeKey("alarm");
    granted(await stub(byAlarm).acquire({ key: byAlarm, holder: "run-a", ttlMs: TTL_MS }));
    await runDurableObjectAlarm(rawStub(byAlarm));
    expect(await env.RECEIPTS.head(heldIndexKey(byAlarm))).not.toBeNull();

    const byRead = freshScopeKey("read");
    granted(await stub(byRead).acquire({ key: byRead, holder: "run-a", ttlMs: TTL_MS }));
    expect((await stub(byRead).read({ key: byRead })).held).toBe(true);
    expect(await env.RECEIPTS.head(heldIndexKey(byRead))).not.toBeNull();
  });
});
