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

/** Lets the object's background index write run (each R2 head is I/O), then says if it exists. */
async function indexedSoon(key: string): Promise<boolean> {
  for (let i = 0; i < 20; i++) if ((await env.RECEIPTS.head(heldIndexKey(key))) !== null) return true;
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
