/**
 * Expiry (docs/design.md, "Lease protocol"): by the alarm, or noticed by the clock when no alarm ran. Alarms
 * may be late or repeated; every path checks the clock itself. Tests move a lease's expiry into the past
 * instead of sleeping (helpers/locks.ts).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, it } from "vitest";
import {
  armedAlarm,
  expireLeaseNow,
  freshScopeKey,
  granted,
  metaValue,
  rawStub,
  refused,
  stub,
} from "../helpers/locks";

const TTL_MS = 30_000;
const LONG_WAIT_MS = 60_000;

describe("lease expiry", () => {
  it("arms an alarm at the lease's expiry", async ({ expect }) => {
    const key = freshScopeKey();
    const grant = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    expect(await armedAlarm(key)).toBe(grant.expiresAt);
  });

  it("the alarm expires a lease whose time is up and grants the next waiter", async ({ expect }) => {
    const key = freshScopeKey();
    const lock = stub(key);
    granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = lock.acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
    });
    expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-b"]);
    await expireLeaseNow(key);

    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);

    const b = granted(await waiting);
    expect(b).toMatchObject({ holder: "run-b", token: 2 });
    const state = await lock.read({ key });
    expect(state).toMatchObject({ holder: "run-b", token: 2, waiters: [] });
    expect(state.history.map((h) => [h.transition, h.holder, h.token])).toEqual([
      ["acquired", "run-a", 1],
      ["expired", "run-a", 1],
      ["acquired", "run-b", 2],
    ]);
    expect(await armedAlarm(key)).toBe(b.expiresAt);
  });

  it("the alarm frees an expired lease nobody waits for and leaves no alarm behind", async ({ expect }) => {
    const key = freshScopeKey();
    granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseNow(key);
    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);
    const state = await stub(key).read({ key });
    expect(state.held).toBe(false);
    expect(state.history.map((h) => h.transition)).toEqual(["acquired", "expired"]);
    expect(await armedAlarm(key)).toBeNull();
  });

  it("an expiry no alarm noticed is taken over with a new, higher token and counted", async ({ expect }) => {
    const key = freshScopeKey();
    granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseNow(key);
    // No alarm runs: the acquire reads the clock itself.
    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(b).toMatchObject({ holder: "run-b", token: 2 });
    const state = await stub(key).read({ key });
    expect(state.history.map((h) => [h.transition, h.holder, h.token])).toEqual([
      ["acquired", "run-a", 1],
      ["expired", "run-a", 1],
      ["taken-over", "run-b", 2],
    ]);
    expect(state.history[1]?.note).toContain("taken over by run-b");
    expect(await metaValue(key, "takeovers")).toBe("1");
  });

  it("a repeated alarm while the lease is live changes nothing and re-arms at its expiry", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    const grant = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const before = await stub(key).read({ key });

    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);
    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);

    const after = await stub(key).read({ key });
    expect(after).toEqual(before);
    expect(await armedAlarm(key)).toBe(grant.expiresAt);
  });

  it("a late alarm after a takeover leaves the new holder alone", async ({ expect }) => {
    const key = freshScopeKey();
    granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseNow(key);
    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    const before = await stub(key).read({ key });

    // The alarm run-a's lease armed fires late, after run-b took over.
    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);

    const after = await stub(key).read({ key });
    expect(after).toEqual(before);
    expect(after).toMatchObject({ holder: "run-b", token: b.token, expiresAt: b.expiresAt });
  });

  it("renewing after expiry is LOCK_LOST and records the expiry", async ({ expect }) => {
    const key = freshScopeKey();
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseNow(key);
    const error = refused(await stub(key).renew({ key, holder: "run-a", token: a.token }));
    expect(error.code).toBe("LOCK_LOST");
    expect(error.detail).toMatchObject({ lock: key, holder: null });
    const state = await stub(key).read({ key });
    expect(state.held).toBe(false);
    expect(state.history.map((h) => h.transition)).toEqual(["acquired", "expired"]);
  });

  it("renewing after another holder took over is LOCK_LOST naming the new holder", async ({ expect }) => {
    const key = freshScopeKey();
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseNow(key);
    granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    const error = refused(await stub(key).renew({ key, holder: "run-a", token: a.token }));
    expect(error).toMatchObject({ code: "LOCK_LOST", detail: { lock: key, holder: "run-b" } });
  });
});
