/** What survives the object: fencing tokens across eviction; a history that stays bounded. */
import { evictDurableObject } from "cloudflare:test";
import { describe, it } from "vitest";
import { HISTORY_LIMIT } from "../../durable-objects/lease-lock";
import { freshScopeKey, granted, historyRowCount, rawStub, stub } from "../helpers/locks";

const TTL_MS = 30_000;

describe("lease durability", () => {
  it("tokens are never reused after the object is evicted", async ({ expect }) => {
    const key = freshScopeKey();
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    granted(await stub(key).release({ key, holder: "run-a", token: a.token }));
    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    granted(await stub(key).release({ key, holder: "run-b", token: b.token }));

    await evictDurableObject(rawStub(key));

    const c = granted(await stub(key).acquire({ key, holder: "run-c", ttlMs: TTL_MS }));
    expect([a.token, b.token, c.token]).toEqual([1, 2, 3]);
    expect((await stub(key).read({ key })).lastToken).toBe(3);
  });

  it("a lease held across eviction is still held, with its token", async ({ expect }) => {
    const key = freshScopeKey();
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await evictDurableObject(rawStub(key));
    expect(await stub(key).read({ key })).toMatchObject({ held: true, holder: "run-a", token: a.token });
    expect(granted(await stub(key).renew({ key, holder: "run-a", token: a.token })).token).toBe(a.token);
  });

  it(`history keeps only the last ${HISTORY_LIMIT} transitions`, async ({ expect }) => {
    const key = freshScopeKey();
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    for (let i = 0; i < HISTORY_LIMIT + 10; i++)
      granted(await lock.renew({ key, holder: "run-a", token: a.token }));
    granted(await lock.release({ key, holder: "run-a", token: a.token }));

    const state = await lock.read({ key });
    expect(state.history).toHaveLength(HISTORY_LIMIT);
    expect(state.history.at(-1)).toMatchObject({ transition: "released", holder: "run-a" });
    // The oldest entries went first: the original grant is no longer there.
    expect(state.history.some((h) => h.transition === "acquired")).toBe(false);
    expect(await historyRowCount(key)).toBe(HISTORY_LIMIT);
  });
});
