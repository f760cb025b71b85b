/**
 * Write combining, the lock object's side (docs/design.md, "Write combining: the lock object's
 * side"): waiters bring their changes, the holder takes them and reports, the object records
 * ownership and answers the waiters. Driven through the real object; time passes by rewriting
 * stored instants and running the alarm, never by sleeping.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, it } from "vitest";
import { ANSWER_KEEP_MS } from "../../durable-objects/combine-store";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import type { CombinedOutcome, CombineReport, QueuedChange } from "../../shared/schemas/combine";
import type { OwnerChange } from "../../shared/schemas/ownership";
import { checkLockHistory, objectHistory } from "../helpers/lock-history";
import {
  armedAlarm,
  expireLeaseNow,
  freshScopeKey,
  granted,
  rawStub,
  refused,
  stub,
  untilQueued,
} from "../helpers/locks";

const TTL_MS = 30_000;
const LONG_WAIT_MS = 60_000;
const OP = "auth0.callbacks";
const OWNER_A = "186853002/preview/pr-1";
const OWNER_B = "186853002/preview/pr-2";

function change(owner: string, url: string, line = 0): QueuedChange {
  return {
    id: `${line}\n${url}`,
    action: "create",
    op: OP,
    key: url,
    params: { url },
    connection: "auth0-tenant.us.auth0.com",
    owner,
    environment: "preview",
    runId: `run-of-${owner}`,
  };
}

const written = (c: QueuedChange): CombinedOutcome => ({ id: c.id, outcome: "written" });
const owns = (c: QueuedChange): OwnerChange => ({ action: "add", op: OP, key: c.key, owner: c.owner });

/** Holder run-a's report, under `token`, that every change of run-b was written (and owned). */
const allWrittenForB = (key: string, token: number, changes: QueuedChange[]) => ({
  key,
  holder: "run-a",
  token,
  reports: [{ waiter: "run-b", applied: changes.map(written), returned: [] }],
  ownerChanges: changes.map(owns),
});

async function storedAnswers(key: string): Promise<Array<{ waiter: string; at: number; complete: number }>> {
  return runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) =>
    state.storage.sql
      .exec<{ waiter: string; at: number; complete: number }>(
        "SELECT waiter, at, complete FROM combined_answers ORDER BY waiter",
      )
      .toArray(),
  );
}

/** Aborts the object as a deploy does: in-memory waiters are gone, their open calls fail. */
async function restartObject(key: string): Promise<void> {
  const aborted = await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    state.abort("deploy");
  }).then(
    () => null,
    (err: unknown) => err,
  );
  if (!aborted) throw new Error("the object did not restart");
}

function setup() {
  const key = freshScopeKey("combine");
  const lock = stub(key);
  // A fresh stub per call: one that saw its object reset may not be reused.
  const queue = (holder: string, changes: QueuedChange[]) =>
    stub(key).acquireOrCombine({
      key,
      holder,
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
      changes,
    });
  return { key, lock, queue };
}

describe("write combining on the lock object", () => {
  it("a queued waiter's changes are written by the holder: it is answered combined and never granted", async ({
    expect,
  }) => {
    const { key, lock, queue } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const changes = [
      change(OWNER_B, "https://pr-2.example.com/cb"),
      change(OWNER_B, "https://pr-2.example.com/x", 1),
    ];
    const waiting = queue("run-b", changes);
    expect((await lock.read({ key })).waiters).toEqual([
      expect.objectContaining({ holder: "run-b", changes: 2, taken: false }),
    ]);

    const taken = granted(await lock.takeQueued({ key, holder: "run-a", token: a.token }));
    expect(taken.waiters).toEqual([{ waiter: "run-b", changes }]);
    expect((await lock.read({ key })).waiters[0]).toMatchObject({ holder: "run-b", taken: true });
    // Taken once: the same holder asking again is not offered the same changes twice.
    expect(granted(await lock.takeQueued({ key, holder: "run-a", token: a.token })).waiters).toEqual([]);

    const outcomes: CombinedOutcome[] = [
      written(changes[0] as QueuedChange),
      { id: changes[1]?.id ?? "", outcome: "already" },
    ];
    const report: CombineReport = { waiter: "run-b", applied: outcomes, returned: [] };
    granted(
      await lock.reportCombined({
        key,
        holder: "run-a",
        token: a.token,
        reports: [report],
        ownerChanges: changes.map(owns),
        locator: { op: OP, connection: "auth0-tenant.us.auth0.com", params: { clientId: "app" } },
      }),
    );
    expect(granted(await waiting)).toEqual({
      grant: null,
      combined: { by: "run-a", token: a.token, outcomes },
    });

    const record = await lock.ownership({ key });
    expect(record.items.map((i) => [i.key, i.owners])).toEqual([
      ["https://pr-2.example.com/cb", [OWNER_B]],
      ["https://pr-2.example.com/x", [OWNER_B]],
    ]);
    expect(record.locators.map((l) => l.op)).toEqual([OP]);
    const state = await lock.read({ key });
    expect(state.waiters).toEqual([]);
    expect(state.history.map((h) => [h.transition, h.holder, h.token])).toContainEqual([
      "combined",
      "run-b",
      a.token,
    ]);
    expect(state.history.some((h) => h.holder === "run-b" && h.transition !== "combined")).toBe(false);
    expect(checkLockHistory(objectHistory(state.history), { window: true })).toEqual([]);
    // Delivered: nothing is kept for it.
    expect(await storedAnswers(key)).toEqual([]);

    // The holder's release frees the lock: the combined waiter is not in the queue any more.
    await lock.release({ key, holder: "run-a", token: a.token });
    expect(await lock.read({ key })).toMatchObject({ held: false, lastToken: a.token });
  });

  it("a change the holder returns sends its waiter on as before, granted later with what was written for it", async ({
    expect,
  }) => {
    const { key, lock, queue } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const [done, refusedChange] = [
      change(OWNER_B, "https://b.example.com/1"),
      change(OWNER_B, "https://b.example.com/2", 1),
    ];
    const waiting = queue("run-b", [done, refusedChange]);
    granted(await lock.takeQueued({ key, holder: "run-a", token: a.token }));
    granted(
      await lock.reportCombined({
        key,
        holder: "run-a",
        token: a.token,
        reports: [
          {
            waiter: "run-b",
            applied: [written(done)],
            returned: [
              { id: refusedChange.id, error: { code: "PROVIDER_ERROR", message: "the provider refused it" } },
            ],
          },
        ],
        ownerChanges: [owns(done)],
      }),
    );
    // Still in its place, untaken, with nothing left to offer a holder.
    expect((await lock.read({ key })).waiters).toEqual([
      expect.objectContaining({ holder: "run-b", changes: 2, taken: false }),
    ]);
    expect(granted(await lock.takeQueued({ key, holder: "run-a", token: a.token })).waiters).toEqual([]);
    expect(await storedAnswers(key)).toEqual([expect.objectContaining({ waiter: "run-b", complete: 0 })]);

    await lock.release({ key, holder: "run-a", token: a.token });
    const answer = granted(await waiting);
    expect(answer.grant).toMatchObject({ holder: "run-b", token: a.token + 1 });
    expect(answer.grant?.claimBy).toBeDefined();
    expect(answer.combined).toEqual({ by: "run-a", token: a.token, outcomes: [written(done)] });
    expect(await storedAnswers(key)).toEqual([]);
    const history = (await lock.read({ key })).history;
    expect(history.map((h) => [h.transition, h.holder, h.token])).toEqual(
      expect.arrayContaining([
        ["combined", "run-b", a.token],
        ["acquired", "run-b", a.token + 1],
      ]),
    );
    expect(checkLockHistory(objectHistory(history), { window: true })).toEqual([]);
  });

  it("a holder that releases without reporting leaves its taken waiters to be granted in turn, with no answer", async ({
    expect,
  }) => {
    const { key, lock, queue } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const b = queue("run-b", [change(OWNER_A, "https://a.example.com/1")]);
    const cChanges = [change(OWNER_B, "https://b.example.com/1")];
    const c = queue("run-c", cChanges);
    expect(granted(await lock.takeQueued({ key, holder: "run-a", token: a.token })).waiters).toHaveLength(2);

    await lock.release({ key, holder: "run-a", token: a.token });
    const bAnswer = granted(await b);
    // Taken and never reported: the grant says so, since the old holder may have written them.
    expect(bAnswer).toEqual({
      grant: expect.objectContaining({ holder: "run-b" }),
      combined: null,
      taken: true,
    });
    const bToken = bAnswer.grant?.token ?? 0;
    // The next holder is offered what the last one took and never reported.
    expect(granted(await lock.takeQueued({ key, holder: "run-b", token: bToken })).waiters).toEqual([
      { waiter: "run-c", changes: cChanges },
    ]);
    // The old holder's report comes too late: refused, nothing recorded, nobody answered.
    const late = refused(
      await lock.reportCombined({
        key,
        holder: "run-a",
        token: a.token,
        reports: [{ waiter: "run-c", applied: cChanges.map(written), returned: [] }],
        ownerChanges: cChanges.map(owns),
      }),
    );
    expect(late.code).toBe("LOCK_LOST");
    expect((await lock.ownership({ key })).items).toEqual([]);
    expect(await storedAnswers(key)).toEqual([]);
    expect((await lock.read({ key })).waiters.map((w) => w.holder)).toEqual(["run-c"]);
    await lock.release({ key, holder: "run-b", token: bToken });
    expect(granted(await c).combined).toBeNull();
  });

  it("a holder whose lease expires after taking leaves the waiter to be granted normally", async ({
    expect,
  }) => {
    const { key, lock, queue } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const changes = [change(OWNER_B, "https://b.example.com/1")];
    const b = queue("run-b", changes);
    granted(await lock.takeQueued({ key, holder: "run-a", token: a.token }));
    await expireLeaseNow(key);
    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);
    const answer = granted(await b);
    expect(answer.grant).toMatchObject({ holder: "run-b", token: a.token + 1 });
    expect(answer.combined).toBeNull();
    // The expired holder can neither take nor report any more.
    expect(refused(await lock.takeQueued({ key, holder: "run-a", token: a.token })).code).toBe("LOCK_LOST");
    const late = await lock.reportCombined(allWrittenForB(key, a.token, changes));
    expect(refused(late).code).toBe("LOCK_LOST");
    expect((await lock.ownership({ key })).items).toEqual([]);
    expect(await storedAnswers(key)).toEqual([]);
    const history = (await lock.read({ key })).history;
    expect(history.some((h) => h.transition === "combined")).toBe(false);
    expect(checkLockHistory(objectHistory(history), { window: true })).toEqual([]);
  });

  it("takeQueued and reportCombined with a stale token are refused and change nothing", async ({
    expect,
  }) => {
    const { key, lock, queue } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const changes = [change(OWNER_B, "https://b.example.com/1")];
    const b = queue("run-b", changes);
    expect(refused(await lock.takeQueued({ key, holder: "run-a", token: a.token + 7 })).code).toBe(
      "LOCK_LOST",
    );
    expect(refused(await lock.takeQueued({ key, holder: "run-z", token: a.token })).code).toBe("LOCK_LOST");
    // Nothing was taken by the refused calls.
    expect((await lock.read({ key })).waiters[0]).toMatchObject({ taken: false });
    const stale = await lock.reportCombined(allWrittenForB(key, a.token - 1, changes));
    expect(refused(stale).code).toBe("LOCK_LOST");
    expect((await lock.ownership({ key })).items).toEqual([]);
    expect(await storedAnswers(key)).toEqual([]);
    expect((await lock.read({ key })).history.some((h) => h.transition === "combined")).toBe(false);
    await lock.release({ key, holder: "run-a", token: a.token });
    expect(granted(await b).combined).toBeNull();
  });

  it("an object restart between take and report: the report still records, and the re-joining waiter gets its answer", async ({
    expect,
  }) => {
    const { key, queue } = setup();
    let lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const changes = [change(OWNER_B, "https://b.example.com/1")];
    const first = queue("run-b", changes).then(
      () => null,
      (err: unknown) => err,
    );
    expect(granted(await lock.takeQueued({ key, holder: "run-a", token: a.token })).waiters).toHaveLength(1);
    await restartObject(key);
    expect(await first).toMatchObject({ durableObjectReset: true });
    lock = stub(key);

    // The lease is in SQLite: the holder's report is accepted after the restart.
    granted(await lock.reportCombined(allWrittenForB(key, a.token, changes)));
    expect((await lock.ownership({ key })).items).toEqual([
      { op: OP, key: "https://b.example.com/1", owners: [OWNER_B], foreign: false },
    ]);
    expect(await storedAnswers(key)).toEqual([expect.objectContaining({ waiter: "run-b", complete: 1 })]);

    // The client re-joins with the same holder, as Lease does after a reset: answered at once.
    const again = granted(await queue("run-b", changes));
    expect(again).toEqual({
      grant: null,
      combined: { by: "run-a", token: a.token, outcomes: changes.map(written) },
    });
    expect(await storedAnswers(key)).toEqual([]);
    expect((await lock.read({ key })).waiters).toEqual([]);
    await lock.release({ key, holder: "run-a", token: a.token });
    expect(checkLockHistory(objectHistory((await lock.read({ key })).history), { window: true })).toEqual([]);
  });

  it("a restart, then a report with a change returned: the re-joining waiter waits its turn with nothing to offer", async ({
    expect,
  }) => {
    const { key, queue } = setup();
    let lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const [done, back] = [
      change(OWNER_B, "https://b.example.com/1"),
      change(OWNER_B, "https://b.example.com/2", 1),
    ];
    const first = queue("run-b", [done, back]).catch((err: unknown) => err);
    granted(await lock.takeQueued({ key, holder: "run-a", token: a.token }));
    await restartObject(key);
    expect(await first).toMatchObject({ durableObjectReset: true });
    lock = stub(key);
    granted(
      await lock.reportCombined({
        key,
        holder: "run-a",
        token: a.token,
        reports: [
          {
            waiter: "run-b",
            applied: [written(done)],
            returned: [{ id: back.id, error: { code: "LOCK_LOST", message: "the write came too late" } }],
          },
        ],
        ownerChanges: [owns(done)],
      }),
    );
    expect(await storedAnswers(key)).toEqual([expect.objectContaining({ waiter: "run-b", complete: 0 })]);

    // Re-joining, it queues again; the holder is not offered its changes a second time.
    const again = queue("run-b", [done, back]);
    expect((await lock.read({ key })).waiters).toEqual([
      expect.objectContaining({ holder: "run-b", changes: 2, taken: false }),
    ]);
    expect(granted(await lock.takeQueued({ key, holder: "run-a", token: a.token })).waiters).toEqual([]);
    await lock.release({ key, holder: "run-a", token: a.token });
    const answer = granted(await again);
    expect(answer.grant).toMatchObject({ holder: "run-b", token: a.token + 1 });
    expect(answer.combined).toEqual({ by: "run-a", token: a.token, outcomes: [written(done)] });
    expect(await storedAnswers(key)).toEqual([]);
  });

  it("a vanished waiter's changes are still recorded; its answer is kept, then aged out by the alarm", async ({
    expect,
  }) => {
    const { key, queue } = setup();
    let lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const changes = [change(OWNER_B, "https://b.example.com/1")];
    const gone = queue("run-b", changes).catch((err: unknown) => err);
    granted(await lock.takeQueued({ key, holder: "run-a", token: a.token }));
    // Its call ends with the object's restart and its run never comes back.
    await restartObject(key);
    expect(await gone).toMatchObject({ durableObjectReset: true });
    lock = stub(key);
    granted(await lock.reportCombined(allWrittenForB(key, a.token, changes)));
    expect((await lock.ownership({ key })).items.map((i) => i.owners)).toEqual([[OWNER_B]]);
    const [kept] = await storedAnswers(key);
    expect(kept).toMatchObject({ waiter: "run-b", complete: 1 });

    // The lock frees up with nobody waiting: the alarm armed for the lease stays; when it fires on
    // the free lock it re-arms for the answer's age-out.
    await lock.release({ key, holder: "run-a", token: a.token });
    expect(await armedAlarm(key)).not.toBeNull();
    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);
    expect(await storedAnswers(key)).toHaveLength(1);
    expect(await armedAlarm(key)).toBe((kept?.at ?? 0) + ANSWER_KEEP_MS);
    // Time passes (the stored instant is moved back), and the alarm deletes it.
    await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
      state.storage.sql.exec("UPDATE combined_answers SET at = at - ?", ANSWER_KEEP_MS);
    });
    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);
    expect(await storedAnswers(key)).toEqual([]);
    expect(await armedAlarm(key)).toBeNull();
    // Ownership recorded by the report stays.
    expect((await lock.ownership({ key })).items.map((i) => i.owners)).toEqual([[OWNER_B]]);
  });

  it("more changes than one waiter may queue: a free lock is granted; on a busy one the caller waits as a plain waiter", async ({
    expect,
  }) => {
    const { key, lock } = setup();
    const tooMany = Array.from({ length: 250 }, (_, i) => change(OWNER_B, `https://b/${i}`, i));
    const free = granted(
      await lock.acquireOrCombine({ key, holder: "run-b", ttlMs: TTL_MS, changes: tooMany }),
    );
    expect(free).toEqual({ grant: expect.objectContaining({ holder: "run-b" }), combined: null });
    const waiting = stub(key).acquireOrCombine({
      key,
      holder: "run-c",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
      changes: tooMany.map((c) => ({ ...c, owner: OWNER_A })),
    });
    await untilQueued(key, 1);
    // Nothing is offered to the holder: the waiter writes its own once granted.
    expect((await lock.read({ key })).waiters).toEqual([
      expect.objectContaining({ holder: "run-c", changes: 0 }),
    ]);
    expect(
      granted(await lock.takeQueued({ key, holder: "run-b", token: free.grant?.token ?? 0 })).waiters,
    ).toEqual([]);
    await lock.release({ key, holder: "run-b", token: free.grant?.token ?? 0 });
    expect(granted(await waiting)).toEqual({
      grant: expect.objectContaining({ holder: "run-c" }),
      combined: null,
    });
  });

  it("granted at once, a caller's changes are its own to write; ambiguous changes are refused, oversized ones decided as a plain acquire", async ({
    expect,
  }) => {
    const { key, lock } = setup();
    const answer = granted(
      await lock.acquireOrCombine({
        key,
        holder: "run-a",
        ttlMs: TTL_MS,
        changes: [change(OWNER_A, "https://a/1")],
      }),
    );
    expect(answer).toEqual({ grant: expect.objectContaining({ holder: "run-a", token: 1 }), combined: null });
    expect(granted(await lock.takeQueued({ key, holder: "run-a", token: 1 })).waiters).toEqual([]);

    const tooMany = Array.from({ length: 201 }, (_, i) => change(OWNER_B, `https://b/${i}`, i));
    // More than one waiter may queue: not refused before the decision, which is "busy" here.
    const big = refused(
      await lock.acquireOrCombine({ key, holder: "run-b", ttlMs: TTL_MS, wait: false, changes: tooMany }),
    );
    expect(big.code).toBe("LOCK_HELD");
    const twice = [change(OWNER_B, "https://b/1"), change(OWNER_B, "https://b/1")];
    expect(
      refused(
        await lock.acquireOrCombine({ key, holder: "run-b", ttlMs: TTL_MS, wait: true, changes: twice }),
      ).code,
    ).toBe("VALIDATION");
    // Neither joined the queue.
    expect((await lock.read({ key })).waiters).toEqual([]);
    const badReport = await lock.reportCombined({
      key,
      holder: "run-a",
      token: 1,
      reports: [{ waiter: "run-b", applied: [{ id: "x", outcome: "invented" as "written" }], returned: [] }],
    });
    expect(refused(badReport).code).toBe("VALIDATION");
    expect(await storedAnswers(key)).toEqual([]);
  });
});
