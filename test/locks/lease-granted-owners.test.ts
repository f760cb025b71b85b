/**
 * The run's side of the ownership view handed over with the grant and of an ownership change that
 * renews (docs/design.md, "Lease protocol"): `grantedOwners` answers what `owners` would, once, and
 * only for items the grant named; `changeOwners` moves the deadline exactly as `renew` does.
 * Real lock objects behind the targets; ManualClock time where deadlines are compared.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { lockStub, lockTarget } from "../../workers/locks/lock-target";
import { ParentLease } from "../../workers/locks/parent-lock";
import { ManualClock } from "../helpers/clock";
import { freshScopeKey, granted } from "../helpers/locks";

const TTL_MS = 30_000;
const MARGIN_MS = 3_000;
const OP = "auth0.callbackUrl";
const ITEMS = [
  { op: OP, key: "https://pr-1.example.com/cb" },
  { op: OP, key: "https://pr-2.example.com/cb" },
];

describe("the grant's ownership view, on the run's side", () => {
  it("answers what owners answers, for the first decision only", async ({ expect }) => {
    const key = freshScopeKey("granted");
    const lease = await ParentLease.acquire(lockTarget(env, key), "run-a", { ttlMs: TTL_MS, items: ITEMS });
    const view = lease.grantedOwners(ITEMS);
    expect(view).toEqual(await lease.owners(ITEMS));
    // Taken once: a decision made again reads afresh.
    expect(lease.grantedOwners(ITEMS)).toBeNull();
    await lease.release();
  });

  it("answers in the order asked, and null where the grant did not name an item (a waiter's, taken later)", async ({
    expect,
  }) => {
    const key = freshScopeKey("granted-cover");
    const lease = await ParentLease.acquire(lockTarget(env, key), "run-a", { ttlMs: TTL_MS, items: ITEMS });
    const reversed = [...ITEMS].reverse();
    expect(lease.grantedOwners(reversed)?.items.map((i) => i.key)).toEqual(reversed.map((i) => i.key));
    const other = await ParentLease.acquire(lockTarget(env, freshScopeKey("granted-cover")), "run-b", {
      ttlMs: TTL_MS,
      items: ITEMS,
    });
    expect(other.grantedOwners([...ITEMS, { op: OP, key: "https://queued.example.com/cb" }])).toBeNull();
    await Promise.all([lease.release(), other.release()]);
  });

  it("is dropped by the holder's own ownership change: it would be stale", async ({ expect }) => {
    const key = freshScopeKey("granted-stale");
    const lease = await ParentLease.acquire(lockTarget(env, key), "run-a", { ttlMs: TTL_MS, items: ITEMS });
    await lease.changeOwners([{ action: "foreign", ...(ITEMS[0] as (typeof ITEMS)[0]) }]);
    expect(lease.grantedOwners(ITEMS)).toBeNull();
    await lease.release();
  });

  it("a run granted after waiting sees, through its claim, the ownership the holder before it left", async ({
    expect,
  }) => {
    const key = freshScopeKey("granted-waiter");
    const stub = lockStub(env, key);
    const a = granted(await stub.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = ParentLease.acquire(lockTarget(env, key), "run-b", {
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: 60_000,
      items: ITEMS,
    });
    for (let i = 0; (await stub.read({ key })).waiters.length === 0; i++) {
      if (i > 1_000) throw new Error("run-b never queued");
      await scheduler.wait(1);
    }
    granted(
      await stub.changeOwners({
        key,
        holder: "run-a",
        token: a.token,
        changes: [{ action: "add", ...(ITEMS[1] as (typeof ITEMS)[1]), owner: "1/preview/pr-2" }],
      }),
    );
    await stub.release({ key, holder: "run-a", token: a.token });
    const lease = await waiting;
    const view = lease.grantedOwners(ITEMS);
    expect(view?.items.map((i) => i.owners)).toEqual([[], ["1/preview/pr-2"]]);
    expect(view).toEqual(await lease.owners(ITEMS));
    await lease.release();
  });
});

describe("an ownership change renews, on the run's side", () => {
  it("moves the deadline and the expiry as a renewal measured before the call does", async ({ expect }) => {
    const clock = new ManualClock();
    const start = clock.now();
    const key = freshScopeKey("change-renews");
    const lease = await ParentLease.acquire(lockTarget(env, key), "run-a", {
      ttlMs: TTL_MS,
      safetyMarginMs: MARGIN_MS,
      clock,
    });
    expect(lease.deadline).toBe(start + TTL_MS - MARGIN_MS);
    clock.advance(TTL_MS / 4); // before the first renewal (TTL/3)
    await lease.changeOwners([
      { action: "add", ...(ITEMS[0] as (typeof ITEMS)[0]), owner: "1/preview/pr-1" },
    ]);
    expect(lease.deadline).toBe(start + TTL_MS / 4 + TTL_MS - MARGIN_MS);
    expect(lease.expiresAt).toBe((await lockStub(env, key).read({ key })).expiresAt);
    await lease.release();
  });

  it("control: without the change the deadline stays where the grant put it", async ({ expect }) => {
    const clock = new ManualClock();
    const start = clock.now();
    const lease = await ParentLease.acquire(lockTarget(env, freshScopeKey("change-control")), "run-a", {
      ttlMs: TTL_MS,
      safetyMarginMs: MARGIN_MS,
      clock,
    });
    clock.advance(TTL_MS / 4);
    await lease.owners(ITEMS);
    expect(lease.deadline).toBe(start + TTL_MS - MARGIN_MS);
    await lease.release();
  });
});
