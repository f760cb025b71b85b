/**
 * acquire (docs/design.md, "Lease protocol"): grant, refusal naming the holder, idempotent re-acquire,
 * independent keys.
 */
import { describe, it } from "vitest";
import { freshScopeKey, granted, refused, stub } from "../helpers/locks";

const TTL_MS = 30_000;

describe("acquiring a lease", () => {
  it("grants a free lock with token 1 and an expiry one TTL after the grant", async ({ expect }) => {
    const key = freshScopeKey();
    const before = Date.now();
    const grant = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    expect(grant).toMatchObject({ key, holder: "run-a", token: 1 });
    expect(grant.acquiredAt).toBeGreaterThanOrEqual(before);
    expect(grant.expiresAt).toBe(grant.acquiredAt + TTL_MS);
    const state = await stub(key).read({ key });
    expect(state).toMatchObject({ held: true, holder: "run-a", token: 1, since: grant.acquiredAt });
    expect(state.history.map((h) => h.transition)).toEqual(["acquired"]);
  });

  it("refuses a second holder with LOCK_HELD naming the first and until when", async ({ expect }) => {
    const key = freshScopeKey();
    const first = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const error = refused(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(error.code).toBe("LOCK_HELD");
    expect(error.message).toContain("run-a");
    expect(error.message).toContain(new Date(first.expiresAt).toISOString());
    expect(error.detail).toEqual({
      lock: key,
      holder: {
        run: "run-a",
        repository: null,
        scope: null,
        pullRequest: null,
        actor: null,
        runUrl: null,
        declared: false,
        since: first.acquiredAt,
        expiresAt: first.expiresAt,
      },
    });
    // The refusal changed nothing.
    const state = await stub(key).read({ key });
    expect(state).toMatchObject({ holder: "run-a", token: 1, waiters: [] });
  });

  it("re-acquiring by the same holder keeps the token and extends the expiry", async ({ expect }) => {
    const key = freshScopeKey();
    const first = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: 1_000 }));
    const again = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    expect(again.token).toBe(first.token);
    expect(again.acquiredAt).toBe(first.acquiredAt);
    expect(again.expiresAt).toBeGreaterThanOrEqual(first.acquiredAt + TTL_MS);
    const state = await stub(key).read({ key });
    expect(state.lastToken).toBe(1);
    expect(state.history.map((h) => [h.transition, h.token])).toEqual([
      ["acquired", 1],
      ["renewed", 1],
    ]);
  });

  it("two keys never block each other", async ({ expect }) => {
    const one = freshScopeKey("one");
    const two = freshScopeKey("two");
    granted(await stub(one).acquire({ key: one, holder: "run-a", ttlMs: TTL_MS }));
    const onTwo = granted(await stub(two).acquire({ key: two, holder: "run-b", ttlMs: TTL_MS }));
    expect(onTwo).toMatchObject({ key: two, holder: "run-b", token: 1 });
    // Control: the same second holder is refused on the key that is actually held.
    expect(refused(await stub(one).acquire({ key: one, holder: "run-b", ttlMs: TTL_MS })).code).toBe(
      "LOCK_HELD",
    );
  });
});
