/**
 * The held-lock index is written behind the answers (docs/storage.md): however many transitions
 * come in a burst, once the lock is read (which waits for the pending write) the entry exists
 * exactly while the lock is held.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { heldIndexKey } from "../../shared/lock-index";
import { freshScopeKey, granted, stub } from "../helpers/locks";

const TTL_MS = 30_000;

describe("the held-lock index behind the answers", () => {
  it("settles on the last state after a burst of acquires and releases", async ({ expect }) => {
    const key = freshScopeKey("burst");
    const lock = stub(key);
    // Not awaiting the index between transitions: each answer returns before its R2 write.
    for (let i = 0; i < 10; i++) {
      const g = granted(await lock.acquire({ key, holder: `run-${i}`, ttlMs: TTL_MS }));
      granted(await lock.release({ key, holder: `run-${i}`, token: g.token }));
    }
    const last = granted(await lock.acquire({ key, holder: "run-last", ttlMs: TTL_MS }));
    expect((await lock.read({ key })).held).toBe(true);
    expect(await env.RECEIPTS.head(heldIndexKey(key))).not.toBeNull();

    granted(await lock.release({ key, holder: "run-last", token: last.token }));
    expect((await lock.read({ key })).held).toBe(false);
    expect(await env.RECEIPTS.head(heldIndexKey(key))).toBeNull();
  });
});
