/**
 * Waiters that cannot stall a lock (docs/design.md, "Lease protocol"): a grant handed to a waiter
 * is provisional until the waiter claims it; an unclaimed grant lapses to the next waiter and the
 * history says so. The same holder waiting twice keeps one place; a late release of one's own
 * expired lease is recorded as such.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, it } from "vitest";
import { CLAIM_WINDOW_MS } from "../../durable-objects/lease-rules";
import { expireLeaseNow, freshScopeKey, granted, rawStub, refused, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const LONG_WAIT_MS = 60_000;

describe("claiming a lease granted after waiting", () => {
  it("an unclaimed grant lapses to the next waiter, and the history shows the lapse", async ({ expect }) => {
    const key = freshScopeKey("lapse");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const wait = (holder: string) =>
      lock.acquire({ key, holder, ttlMs: TTL_MS, wait: true, waitTimeoutMs: LONG_WAIT_MS });
    const b = wait("run-b"); // its caller is gone: nobody will claim what it is granted
    const c = wait("run-c");
    expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-b", "run-c"]);

    const before = Date.now();
    await lock.release({ key, holder: "run-a", token: a.token });
    const bGrant = granted(await b);
    // Provisional: valid for the claim window only, not for the TTL.
    expect(bGrant).toMatchObject({ holder: "run-b", token: a.token + 1 });
    expect(bGrant.claimBy).toBe(bGrant.expiresAt);
    expect(bGrant.expiresAt).toBeLessThanOrEqual(Date.now() + CLAIM_WINDOW_MS);
    expect(bGrant.expiresAt).toBeGreaterThanOrEqual(before + CLAIM_WINDOW_MS);

    // The claim window passes (rewritten, not slept) and the alarm runs.
    await expireLeaseNow(key);
    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);

    const cGrant = granted(await c);
    expect(cGrant).toMatchObject({ holder: "run-c", token: bGrant.token + 1 });
    const state = await lock.read({ key });
    expect(state).toMatchObject({ held: true, holder: "run-c", token: cGrant.token });
    expect(state.history.map((h) => [h.transition, h.holder, h.token])).toEqual([
      ["acquired", "run-a", a.token],
      ["released", "run-a", a.token],
      ["acquired", "run-b", bGrant.token],
      ["claim-lapsed", "run-b", bGrant.token],
      ["acquired", "run-c", cGrant.token],
    ]);
    // The lapsed holder's late claim is refused: it no longer holds anything.
    expect(refused(await lock.claim({ key, holder: "run-b", token: bGrant.token })).code).toBe("LOCK_LOST");
  });

  it("with a short claim window the object's own alarm hands the lock on", async ({ expect }) => {
    const key = freshScopeKey("lapse-alarm");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const b = lock.acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
      claimWindowMs: 5,
    });
    const c = lock.acquire({ key, holder: "run-c", ttlMs: TTL_MS, wait: true, waitTimeoutMs: LONG_WAIT_MS });
    expect((await lock.read({ key })).waiters).toHaveLength(2);
    await lock.release({ key, holder: "run-a", token: a.token });
    const bGrant = granted(await b);
    // Nobody claims run-b's grant; run-c's answer arrives when the alarm at the claim deadline runs.
    const cGrant = granted(await c);
    expect(cGrant.acquiredAt).toBeGreaterThanOrEqual(bGrant.claimBy as number);
    const history = (await lock.read({ key })).history;
    expect(history.find((h) => h.transition === "claim-lapsed")).toMatchObject({
      holder: "run-b",
      token: bGrant.token,
    });
  });

  it("a waiter that claims within its window keeps the lease for its TTL", async ({ expect }) => {
    const key = freshScopeKey("claim");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const b = lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS, wait: true, waitTimeoutMs: LONG_WAIT_MS });
    const c = lock.acquire({ key, holder: "run-c", ttlMs: TTL_MS, wait: true, waitTimeoutMs: LONG_WAIT_MS });
    expect((await lock.read({ key })).waiters).toHaveLength(2);
    await lock.release({ key, holder: "run-a", token: a.token });
    const bGrant = granted(await b);

    const before = Date.now();
    const claimed = granted(await lock.claim({ key, holder: "run-b", token: bGrant.token }));
    expect(claimed.token).toBe(bGrant.token);
    expect(claimed.claimBy).toBeUndefined();
    expect(claimed.expiresAt).toBeGreaterThanOrEqual(before + TTL_MS);
    // Claiming twice is harmless (a retried claim): same token, still held.
    expect(granted(await lock.claim({ key, holder: "run-b", token: bGrant.token })).token).toBe(bGrant.token);

    // The alarm at the old claim deadline finds nothing due: run-b keeps it, run-c still waits.
    await runDurableObjectAlarm(rawStub(key));
    const state = await lock.read({ key });
    expect(state).toMatchObject({ held: true, holder: "run-b", token: bGrant.token });
    expect(state.waiters.map((w) => w.holder)).toEqual(["run-c"]);
    expect(state.history.map((h) => h.transition)).toEqual([
      "acquired",
      "released",
      "acquired",
      "claimed",
      "renewed",
    ]);
    await lock.release({ key, holder: "run-b", token: bGrant.token });
    expect(granted(await c).holder).toBe("run-c");
  });

  it("a grant taken without waiting needs no claim", async ({ expect }) => {
    const key = freshScopeKey("direct");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    expect(a.claimBy).toBeUndefined();
    expect(a.expiresAt - a.acquiredAt).toBe(TTL_MS);
  });
});

describe("the same holder waiting twice", () => {
  it("re-attaches to its place: one queue entry, and both calls get the same grant", async ({ expect }) => {
    const key = freshScopeKey("reattach");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const ask = (holder: string) =>
      lock.acquire({ key, holder, ttlMs: TTL_MS, wait: true, waitTimeoutMs: LONG_WAIT_MS });
    const first = ask("run-b");
    const other = ask("run-c");
    const again = ask("run-b"); // a retry after a lost answer: no VALIDATION, no second place
    const state = await lock.read({ key });
    expect(state.waiters.map((w) => w.holder)).toEqual(["run-b", "run-c"]);

    await lock.release({ key, holder: "run-a", token: a.token });
    const [one, two] = [granted(await first), granted(await again)];
    expect(one).toEqual(two);
    expect(one).toMatchObject({ holder: "run-b", token: a.token + 1 });
    expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-c"]);
    await lock.release({ key, holder: "run-b", token: one.token });
    expect(granted(await other)).toMatchObject({ holder: "run-c", token: one.token + 1 });
  });
});

describe("releasing one's own expired lease", () => {
  it("is recorded as released-expired, not released", async ({ expect }) => {
    const key = freshScopeKey("late");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseNow(key);
    const outcome = granted(await lock.release({ key, holder: "run-a", token: a.token }));
    expect(outcome.released).toBe(true);
    const state = await lock.read({ key });
    expect(state.held).toBe(false);
    expect(state.history.map((h) => [h.transition, h.holder, h.token])).toEqual([
      ["acquired", "run-a", a.token],
      ["released-expired", "run-a", a.token],
    ]);
    // Control: a release in time is a plain release.
    const b = granted(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    granted(await lock.release({ key, holder: "run-b", token: b.token }));
    expect((await lock.read({ key })).history.at(-1)).toMatchObject({
      transition: "released",
      holder: "run-b",
    });
  });
});
