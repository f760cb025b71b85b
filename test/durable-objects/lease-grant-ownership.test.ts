/**
 * The ownership view handed over with the grant (docs/design.md, "Ownership of shared entries"):
 * an acquire (or a waiter's claim) naming items is answered their ownership as `owners` would
 * answer it at that instant, under the new lease. And an ownership change renews the lease in the
 * same call (docs/design.md, "Lease protocol").
 */
import { describe, it } from "vitest";
import { freshScopeKey, granted, refused, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const LONG_WAIT_MS = 60_000;
const OP = "auth0.callbackUrl";
const ORIGINS = "auth0.webOrigin";
const MINE = "https://pr-1.example.com/cb";
const THEIRS = "https://pr-2.example.com/cb";
const ITEMS = [
  { op: OP, key: MINE },
  { op: OP, key: THEIRS },
];

describe("the ownership view with the grant", () => {
  it("a grant made at once carries what owners says of the named items, no more", async ({ expect }) => {
    const key = freshScopeKey("grant-view");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    granted(
      await lock.changeOwners({
        key,
        holder: "run-a",
        token: a.token,
        changes: [
          { action: "add", op: OP, key: THEIRS, owner: "1/preview/pr-2" },
          { action: "foreign", op: ORIGINS, key: "https://kept.example.com" },
        ],
        locator: { op: OP, connection: "auth0-x", params: { client: "c" } },
        rebuilt: true,
      }),
    );
    await lock.release({ key, holder: "run-a", token: a.token });

    const b = granted(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS, items: ITEMS }));
    const said = granted(await lock.owners({ key, holder: "run-b", token: b.token, items: ITEMS }));
    expect(b.ownership).toEqual(said);
    expect(b.ownership).toEqual({
      rebuilt: true,
      listedOps: [OP],
      items: [
        { op: OP, key: MINE, owners: [], foreign: false },
        { op: OP, key: THEIRS, owners: ["1/preview/pr-2"], foreign: false },
      ],
      // The shares of the named items' op, counted by owner and by repository.
      shares: {
        owners: [{ op: OP, owner: "1/preview/pr-2", entries: 1 }],
        repositories: [{ op: OP, repositoryId: 1, entries: 1 }],
      },
    });
  });

  it("an acquire naming no items gets no view (a scope lease, ownership off)", async ({ expect }) => {
    const key = freshScopeKey("grant-none");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    expect(a.ownership).toBeUndefined();
  });

  it("a waiter granted after the holder changed ownership: its claim shows the holder's changes", async ({
    expect,
  }) => {
    const key = freshScopeKey("grant-waiter");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS, items: ITEMS }));
    expect(a.ownership?.items.map((i) => i.owners)).toEqual([[], []]);
    const waiting = lock.acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
      items: ITEMS,
    });
    expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-b"]);
    // The holder claims one item and marks the other foreign while the waiter waits.
    granted(
      await lock.changeOwners({
        key,
        holder: "run-a",
        token: a.token,
        changes: [
          { action: "add", op: OP, key: MINE, owner: "1/preview/pr-1" },
          { action: "foreign", op: OP, key: THEIRS },
        ],
      }),
    );
    await lock.release({ key, holder: "run-a", token: a.token });
    // The grant to a waiter is provisional: the view comes with its claim, read then.
    const provisional = granted(await waiting);
    expect(provisional.claimBy).toBeDefined();
    expect(provisional.ownership).toBeUndefined();
    const claimed = granted(
      await lock.claim({ key, holder: "run-b", token: provisional.token, items: ITEMS }),
    );
    const said = granted(await lock.owners({ key, holder: "run-b", token: claimed.token, items: ITEMS }));
    expect(claimed.ownership).toEqual(said);
    expect(claimed.ownership?.items).toEqual([
      { op: OP, key: MINE, owners: ["1/preview/pr-1"], foreign: false },
      { op: OP, key: THEIRS, owners: [], foreign: true },
    ]);
  });

  it("acquireOrCombine granted at once carries the view too", async ({ expect }) => {
    const key = freshScopeKey("grant-combine");
    const answer = granted(
      await stub(key).acquireOrCombine({ key, holder: "run-a", ttlMs: TTL_MS, changes: [], items: ITEMS }),
    );
    expect(answer.grant?.ownership?.items).toEqual([
      { op: OP, key: MINE, owners: [], foreign: false },
      { op: OP, key: THEIRS, owners: [], foreign: false },
    ]);
  });

  it("a refused claim (the grant lapsed or was taken away) answers no view", async ({ expect }) => {
    const key = freshScopeKey("grant-refused");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await lock.forceRelease({ key, reason: "test", actor: "admin" });
    expect(refused(await lock.claim({ key, holder: "run-a", token: a.token, items: ITEMS })).code).toBe(
      "LOCK_LOST",
    );
  });
});

describe("an ownership change renews the lease", () => {
  it("answers the new expiry, later than the grant's, recorded as a renewal", async ({ expect }) => {
    const key = freshScopeKey("change-renews");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await scheduler.wait(5); // the object's clock moves on, so a renewal shows
    const changed = granted(
      await lock.changeOwners({
        key,
        holder: "run-a",
        token: a.token,
        changes: [{ action: "add", op: OP, key: MINE, owner: "1/preview/pr-1" }],
      }),
    );
    expect(changed.expiresAt).toBeGreaterThan(a.expiresAt);
    const state = await lock.read({ key });
    expect(state.expiresAt).toBe(changed.expiresAt);
    expect(state.history.map((h) => h.transition)).toEqual(["acquired", "renewed"]);
    expect(changed.items).toEqual([{ op: OP, key: MINE, owners: ["1/preview/pr-1"], foreign: false }]);
  });

  it("a change by a lost lease neither changes nor renews", async ({ expect }) => {
    const key = freshScopeKey("change-lost");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await lock.forceRelease({ key, reason: "test", actor: "admin" });
    const b = granted(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS, items: ITEMS }));
    const late = await lock.changeOwners({
      key,
      holder: "run-a",
      token: a.token,
      changes: [{ action: "add", op: OP, key: MINE, owner: "1/preview/pr-1" }],
    });
    expect(refused(late).code).toBe("LOCK_LOST");
    const state = await lock.read({ key });
    expect(state).toMatchObject({ holder: "run-b", token: b.token, expiresAt: b.expiresAt });
    const said = granted(await lock.owners({ key, holder: "run-b", token: b.token, items: ITEMS }));
    expect(said.items.map((i) => i.owners)).toEqual([[], []]);
  });
});
