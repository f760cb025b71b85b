/**
 * Holds, the lock object's side (docs/design.md, "Lease protocol: holds"): a hold blocks every
 * next grant until it ends or is lifted, and never interrupts the lease already held. Time passes
 * by rewriting the hold's end (`endHold`) and running the alarm, never by sleeping; a hold whose
 * alarm is late or lost ends all the same, because every path reads the clock itself.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { heldIndexKey } from "../../shared/lock-index";
import type { QueuedChange } from "../../shared/schemas/combine";
import { holdAuditSchema, holdExpiryAuditKey } from "../../shared/schemas/hold";
import { armedAlarm, freshScopeKey, granted, rawStub, refused, stub, untilQueued } from "../helpers/locks";

const TTL_MS = 30_000;
const HOUR_MS = 3_600_000;
const LONG_WAIT_MS = 60_000;

/** Moves the hold's end into the past, as if its time had run out, without running the alarm. */
async function endHold(key: string): Promise<void> {
  await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    state.storage.sql.exec("UPDATE holds SET until = ? WHERE until > ?", Date.now() - 1, Date.now());
  });
}

async function holdRows(key: string): Promise<number> {
  return runInDurableObject(
    rawStub(key),
    async (_instance: LeaseLock, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM holds").one().n,
  );
}

function setup(prefix = "hold") {
  const key = freshScopeKey(prefix);
  return { key, lock: stub(key) };
}

const holdFor = (key: string, ms = HOUR_MS) => ({
  key,
  reason: "IdP migration",
  by: "alice-admin",
  ttlMs: ms,
});

describe("a hold on a lock", () => {
  it("refuses the next run, naming the hold, who set it, until when and what to do", async ({ expect }) => {
    const { key, lock } = setup();
    const set = granted(await lock.hold(holdFor(key)));
    expect(set.hold).toMatchObject({ reason: "IdP migration", by: "alice-admin" });
    expect(set.hold?.until).toBe((set.hold?.since ?? 0) + HOUR_MS);
    expect(set.previous).toBeNull();

    const error = refused(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(error.code).toBe("LOCK_HELD");
    expect(error.detail?.holder).toEqual({
      hold: { reason: "IdP migration", by: "alice-admin", until: set.hold?.until },
    });
    expect(error.detail?.retryAfterSeconds).toBeGreaterThan(HOUR_MS / 1000 - 5);
    expect(error.detail?.retryAfterSeconds).toBeLessThanOrEqual(HOUR_MS / 1000);
    expect(error.message).toContain("IdP migration");
    expect(error.message).toContain("alice-admin");
    expect(error.message).toContain(new Date(set.hold?.until ?? 0).toISOString());
    expect(error.message).toContain(`sponson unhold ${key}`);
    // The lock is shown with its hold, and is not held by anyone.
    const state = await lock.read({ key });
    expect(state).toMatchObject({ held: false, hold: set.hold });
    expect(state.history.map((h) => h.transition)).toEqual(["hold-set"]);
  });

  it("set while a run holds the lease: the run renews, re-acquires and releases; the next run is refused", async ({
    expect,
  }) => {
    const { key, lock } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    granted(await lock.hold(holdFor(key)));
    // The holder is not interrupted: renewals, an idempotent re-acquire and its ownership calls go on.
    expect(granted(await lock.renew({ key, holder: "run-a", token: a.token })).token).toBe(a.token);
    expect(granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS })).token).toBe(a.token);
    granted(await lock.changeOwners({ key, holder: "run-a", token: a.token, changes: [] }));
    expect(granted(await lock.release({ key, holder: "run-a", token: a.token })).released).toBe(true);
    const error = refused(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(error.detail?.holder).toMatchObject({ hold: { by: "alice-admin" } });
  });

  it("a newcomer refused while a run holds the lease and a hold is set is told of the hold", async ({
    expect,
  }) => {
    const { key, lock } = setup();
    granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    granted(await lock.hold(holdFor(key)));
    const error = refused(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(error.detail?.holder).toMatchObject({ hold: { reason: "IdP migration" } });
  });

  it("a waiter already granted the lock before the hold may still claim it", async ({ expect }) => {
    const { key, lock } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = lock.acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
    });
    await untilQueued(key, 1);
    granted(await lock.release({ key, holder: "run-a", token: a.token }));
    const b = granted(await waiting);
    expect(b.claimBy).toBeDefined();
    granted(await lock.hold(holdFor(key)));
    const claimed = granted(await lock.claim({ key, holder: "run-b", token: b.token }));
    expect(claimed).toMatchObject({ holder: "run-b", token: b.token });
    expect(claimed.claimBy).toBeUndefined();
  });

  it("a waiter is not handed the lock while the hold is in force; the alarm at its end grants it", async ({
    expect,
  }) => {
    const { key, lock } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const set = granted(await lock.hold(holdFor(key)));
    const waiting = lock.acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
    });
    await untilQueued(key, 1);
    granted(await lock.release({ key, holder: "run-a", token: a.token }));
    let state = await lock.read({ key });
    expect(state.held).toBe(false);
    expect(state.waiters.map((w) => w.holder)).toEqual(["run-b"]);
    // The alarm is armed no later than the hold's end.
    expect(await armedAlarm(key)).toBeLessThanOrEqual(set.hold?.until ?? 0);
    // An early alarm hands nothing over.
    await runDurableObjectAlarm(rawStub(key));
    state = await lock.read({ key });
    expect(state.waiters.map((w) => w.holder)).toEqual(["run-b"]);

    await endHold(key);
    await runDurableObjectAlarm(rawStub(key));
    expect(granted(await waiting)).toMatchObject({ holder: "run-b", token: a.token + 1 });
  });

  it("a hold whose alarm never fires still ends: the next call hands the lock to the waiter first", async ({
    expect,
  }) => {
    const { key, lock } = setup();
    granted(await lock.hold(holdFor(key)));
    const waiting = lock.acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
    });
    await untilQueued(key, 1);
    await endHold(key);
    // No alarm runs: the newcomer's own call sees the hold has ended and grants the waiter first.
    const error = refused(await lock.acquire({ key, holder: "run-c", ttlMs: TTL_MS }));
    expect(error.detail?.holder).not.toHaveProperty("hold");
    expect(granted(await waiting)).toMatchObject({ holder: "run-b" });
  });

  it("a hold whose alarm never fires: a free lock is granted at once after its end", async ({ expect }) => {
    const { key, lock } = setup();
    granted(await lock.hold(holdFor(key)));
    await endHold(key);
    expect(granted(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS }))).toMatchObject({
      holder: "run-b",
    });
    expect((await lock.read({ key })).hold).toBeUndefined();
  });

  it("a waiter whose wait timeout passes during the hold is refused, naming the hold", async ({ expect }) => {
    const { key, lock } = setup();
    granted(await lock.hold(holdFor(key)));
    const error = refused(
      await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS, wait: true, waitTimeoutMs: 1 }),
    );
    expect(error.detail?.holder).toMatchObject({ hold: { reason: "IdP migration" } });
    expect((await lock.read({ key })).waiters).toEqual([]);
  });

  it("lifting the hold grants the waiter and lets the next run in", async ({ expect }) => {
    const { key, lock } = setup();
    const set = granted(await lock.hold(holdFor(key)));
    const waiting = lock.acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
    });
    await untilQueued(key, 1);
    const lifted = granted(await lock.unhold({ key, actor: "bob-admin" }));
    expect(lifted).toMatchObject({ hold: null, previous: set.hold });
    expect(granted(await waiting)).toMatchObject({ holder: "run-b" });
    const state = await lock.read({ key });
    expect(state.hold).toBeUndefined();
    expect(state.history.map((h) => [h.transition, h.holder])).toContainEqual(["hold-lifted", "bob-admin"]);
    // Lifting again: nothing in force.
    expect(granted(await lock.unhold({ key, actor: "bob-admin" }))).toMatchObject({
      hold: null,
      previous: null,
    });
  });

  it("setting a hold again replaces the one in force", async ({ expect }) => {
    const { key, lock } = setup();
    const first = granted(await lock.hold(holdFor(key)));
    const second = granted(await lock.hold({ ...holdFor(key, 2 * HOUR_MS), reason: "longer" }));
    expect(second.previous).toEqual(first.hold);
    expect((await lock.read({ key })).hold).toEqual(second.hold);
    expect(await holdRows(key)).toBe(1);
  });

  it("refuses a hold without a reason or with an unbounded ttl", async ({ expect }) => {
    const { key, lock } = setup();
    expect(refused(await lock.hold({ ...holdFor(key), reason: " " })).code).toBe("VALIDATION");
    expect(refused(await lock.hold(holdFor(key, 0))).code).toBe("VALIDATION");
    expect(refused(await lock.hold(holdFor(key, 365 * 24 * HOUR_MS))).code).toBe("VALIDATION");
    expect((await lock.read({ key })).hold).toBeUndefined();
  });

  it("a held free lock is listed; its expiry is audited by the alarm and unlists it", async ({ expect }) => {
    const { key, lock } = setup();
    const set = granted(await lock.hold(holdFor(key)));
    expect(await env.RECEIPTS.head(heldIndexKey(key))).not.toBeNull();
    await endHold(key);
    await runDurableObjectAlarm(rawStub(key));
    expect(await env.RECEIPTS.head(heldIndexKey(key))).toBeNull();
    expect(await holdRows(key)).toBe(0);
    const until = Date.now() - 1;
    const listed = await env.RECEIPTS.list({ prefix: "audit/holds/" });
    const mine = listed.objects.filter((o) => o.key.endsWith(`${encodeURIComponent(key)}.json`));
    expect(mine).toHaveLength(1);
    const record = holdAuditSchema.parse(await (await env.RECEIPTS.get(mine[0]?.key ?? ""))?.json());
    expect(record).toMatchObject({ key, action: "expire", actor: null, reason: "IdP migration" });
    expect(record.hold).toMatchObject({ since: set.hold?.since, by: "alice-admin" });
    expect(record.at).toBeLessThanOrEqual(until + 1);
    expect(mine[0]?.key).toBe(holdExpiryAuditKey(key, 1, record.at));
    expect((await lock.read({ key })).history.map((h) => h.transition)).toEqual(["hold-set", "hold-expired"]);
  });

  it("stops write combining: the holder takes no waiter's changes while the hold is in force", async ({
    expect,
  }) => {
    const { key, lock } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const change: QueuedChange = {
      id: "0\nhttps://b.example/cb",
      action: "create",
      op: "auth0.callbacks",
      key: "https://b.example/cb",
      params: { url: "https://b.example/cb" },
      connection: "auth0-tenant.us.auth0.com",
      owner: "186853002/preview/pr-2",
      environment: "preview",
      runId: "run-b",
    };
    void lock.acquireOrCombine({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
      changes: [change],
    });
    await untilQueued(key, 1);
    granted(await lock.hold(holdFor(key)));
    expect(granted(await lock.takeQueued({ key, holder: "run-a", token: a.token }))).toEqual({ waiters: [] });
    // Control: lifted, the same holder takes them.
    granted(await lock.unhold({ key, actor: "alice-admin" }));
    expect(granted(await lock.takeQueued({ key, holder: "run-a", token: a.token })).waiters).toHaveLength(1);
    granted(await lock.release({ key, holder: "run-a", token: a.token }));
  });
});
