/**
 * The held-lock index costs an R2 put only for a lease worth listing (docs/storage.md, "R2
 * held-lock index"): a lease taken and released within the listing delay — most runs' — writes
 * nothing to R2, while one held past it is listed by its next renewal, and a read or the alarm
 * lists any held lock at once.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { LIST_AFTER_MS } from "../../durable-objects/held-index";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { heldIndexKey } from "../../shared/lock-index";
import { freshScopeKey, granted, rawStub, stub } from "../helpers/locks";

const TTL_MS = 30_000;

/**
 * Whether the object's index write lands within `ms`, polled (a timer turn lets calls still
 * being sent reach the object); the bound is only how long a test waits for an entry never written.
 */
async function indexedSoon(key: string, ms = 2_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  do {
    if ((await env.RECEIPTS.head(heldIndexKey(key))) !== null) return true;
    await scheduler.wait(5);
  } while (Date.now() < deadline);
  return false;
}

const ageLease = (key: string, ms: number) =>
  runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    state.storage.sql.exec("UPDATE lease SET acquired_at = acquired_at - ? WHERE id = 1", ms);
  });

describe("the held-lock index and short leases", () => {
  it("a lease taken, renewed and released within the listing delay writes no index entry", async ({
    expect,
  }) => {
    const key = freshScopeKey("short");
    const lock = stub(key);
    const g = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    granted(await lock.renew({ key, holder: "run-a", token: g.token }));
    expect(await indexedSoon(key)).toBe(false);
    granted(await lock.release({ key, holder: "run-a", token: g.token }));
    expect(await indexedSoon(key)).toBe(false);
    expect((await lock.read({ key })).history.map((h) => h.transition)).toEqual([
      "acquired",
      "renewed",
      "released",
    ]);
  });

  it("control: the same lease held past the delay is listed by its renewal", async ({ expect }) => {
    const key = freshScopeKey("long");
    const lock = stub(key);
    const g = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await ageLease(key, LIST_AFTER_MS);
    granted(await lock.renew({ key, holder: "run-a", token: g.token }));
    expect(await indexedSoon(key)).toBe(true);
  });

  it("a young lease another run asks for is listed: by the refusal's answer, and behind a waiter", async ({
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
    expect(await indexedSoon(queuedKey)).toBe(true);
    granted(await stub(queuedKey).release({ key: queuedKey, holder: "run-a", token: a.token }));
    granted(await waiting);
  });

  it("a young lease is listed at once by its alarm, and by a read", async ({ expect }) => {
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
