/** renew, release and forceRelease (docs/design.md, "Lease protocol"). */
import { describe, it } from "vitest";
import { expireLeaseNow, freshScopeKey, granted, setLeaseExpiry, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const LONG_WAIT_MS = 60_000;

describe("renewing and releasing a lease", () => {
  it("renew extends the expiry to one TTL from now and keeps the token", async ({ expect }) => {
    const key = freshScopeKey();
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    // As if most of the TTL had passed: one second left.
    const almostOver = Date.now() + 1_000;
    await setLeaseExpiry(key, almostOver);
    const before = Date.now();
    const renewed = granted(await stub(key).renew({ key, holder: "run-a", token: a.token }));
    const after = Date.now();
    expect(renewed.token).toBe(a.token);
    expect(renewed.expiresAt).toBeGreaterThanOrEqual(before + TTL_MS);
    expect(renewed.expiresAt).toBeLessThanOrEqual(after + TTL_MS);
    expect(renewed.expiresAt).toBeGreaterThan(almostOver);
    const state = await stub(key).read({ key });
    expect(state.expiresAt).toBe(renewed.expiresAt);
    expect(state.history.map((h) => h.transition)).toEqual(["acquired", "renewed"]);
  });

  it("renew with someone else's holder name or token is LOCK_LOST and changes nothing", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    expect(await stub(key).renew({ key, holder: "run-b", token: a.token })).toMatchObject({
      ok: false,
      error: { code: "LOCK_LOST" },
    });
    expect(await stub(key).renew({ key, holder: "run-a", token: a.token + 1 })).toMatchObject({
      ok: false,
      error: { code: "LOCK_LOST" },
    });
    const state = await stub(key).read({ key });
    expect(state).toMatchObject({ holder: "run-a", token: a.token, expiresAt: a.expiresAt });
  });

  it("release frees the lock, and releasing again says it was not held", async ({ expect }) => {
    const key = freshScopeKey();
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const first = granted(await stub(key).release({ key, holder: "run-a", token: a.token }));
    expect(first).toMatchObject({ released: true, reason: "released" });
    const second = granted(await stub(key).release({ key, holder: "run-a", token: a.token }));
    expect(second).toMatchObject({ released: false, reason: "not-held" });
    const state = await stub(key).read({ key });
    expect(state.held).toBe(false);
    expect(state.history.map((h) => h.transition)).toEqual(["acquired", "released"]);
  });

  it("release with a stale token changes nothing and says so", async ({ expect }) => {
    const key = freshScopeKey();
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseNow(key);
    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    const before = await stub(key).read({ key });

    const outcome = granted(await stub(key).release({ key, holder: "run-a", token: a.token }));

    expect(outcome).toMatchObject({ released: false, reason: "stale-token" });
    const after = await stub(key).read({ key });
    expect(after).toEqual(before);
    expect(after).toMatchObject({ holder: "run-b", token: b.token });
  });

  it("force-release is recorded with actor and reason and grants the next waiter", async ({ expect }) => {
    const key = freshScopeKey();
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = lock.acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
    });
    expect((await lock.read({ key })).waiters).toHaveLength(1);

    const outcome = granted(await lock.forceRelease({ key, reason: "runner vanished", actor: "admin-1" }));

    expect(outcome).toMatchObject({ released: true });
    expect(granted(await waiting)).toMatchObject({ holder: "run-b", token: a.token + 1 });
    const state = await lock.read({ key });
    const forced = state.history.find((h) => h.transition === "force-released");
    expect(forced).toMatchObject({ holder: "run-a", token: a.token });
    expect(forced?.note).toContain("admin-1");
    expect(forced?.note).toContain("runner vanished");
    expect(state.history.map((h) => h.transition)).toEqual(["acquired", "force-released", "acquired"]);
    // The old holder's lease is gone: its renewal now fails.
    expect(await lock.renew({ key, holder: "run-a", token: a.token })).toMatchObject({
      ok: false,
      error: { code: "LOCK_LOST" },
    });
  });
});
