/**
 * The grant takes the queue (docs/design.md, "Write combining: the lock object's side"): a combining
 * holder is handed the changes queued behind it with its grant — a grant made at once, or the claim
 * of a grant it waited for — in the same step, so it makes no `takeQueued` call of its own. A waiter
 * that queues after that step is not this holder's: it stays untaken, for the next holder.
 */
import { describe, it } from "vitest";
import type { QueuedChange } from "../../shared/schemas/combine";
import { freshScopeKey, granted, stub, untilQueued } from "../helpers/locks";

const TTL_MS = 30_000;
const LONG_WAIT_MS = 60_000;

function change(owner: string, url: string): QueuedChange {
  return {
    id: `0\n${url}`,
    action: "create",
    op: "auth0.callbacks",
    key: url,
    params: { url },
    connection: "auth0-tenant.us.auth0.com",
    owner,
    environment: "preview",
    runId: `run-of-${owner}`,
  };
}

function setup() {
  const key = freshScopeKey("grant-takes");
  const queue = (holder: string, changes: QueuedChange[]) =>
    stub(key).acquireOrCombine({
      key,
      holder,
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
      changes,
    });
  return { key, lock: stub(key), queue };
}

describe("the combining grant takes the queue", () => {
  it("a claim that asks to take answers the changes queued behind the waiter, taken by its token", async ({
    expect,
  }) => {
    const { key, lock, queue } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const bChanges = [change("186853002/preview/pr-2", "https://pr-2.example.com/cb")];
    const cChanges = [change("186853002/preview/pr-3", "https://pr-3.example.com/cb")];
    const b = queue("run-b", bChanges);
    await untilQueued(key, 1);
    void queue("run-c", cChanges);
    await untilQueued(key, 2);
    granted(await lock.release({ key, holder: "run-a", token: a.token }));
    const handed = granted(await b).grant;
    if (!handed) throw new Error("run-b was not granted");
    expect(handed.claimBy).toBeDefined();
    const claimed = granted(await lock.claim({ key, holder: "run-b", token: handed.token, take: true }));
    expect(claimed.queued).toEqual([{ waiter: "run-c", changes: cChanges }]);
    expect((await lock.read({ key })).waiters).toEqual([
      expect.objectContaining({ holder: "run-c", taken: true }),
    ]);
    // Taken with the claim: a takeQueued after it is offered nothing more.
    expect(granted(await lock.takeQueued({ key, holder: "run-b", token: handed.token })).waiters).toEqual([]);
  });

  it("a grant made at once answers the queue too (empty: nobody waits when a lock is granted at once)", async ({
    expect,
  }) => {
    const { key, lock } = setup();
    const answer = granted(await lock.acquireOrCombine({ key, holder: "run-a", ttlMs: TTL_MS, changes: [] }));
    expect(answer.grant?.queued).toEqual([]);
  });

  it("control: a claim that does not ask to take leaves the queue untaken", async ({ expect }) => {
    const { key, lock, queue } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const b = queue("run-b", [change("186853002/preview/pr-2", "https://pr-2.example.com/cb")]);
    await untilQueued(key, 1);
    void queue("run-c", [change("186853002/preview/pr-3", "https://pr-3.example.com/cb")]);
    await untilQueued(key, 2);
    granted(await lock.release({ key, holder: "run-a", token: a.token }));
    const handed = granted(await b).grant;
    if (!handed) throw new Error("run-b was not granted");
    const claimed = granted(await lock.claim({ key, holder: "run-b", token: handed.token }));
    expect(claimed.queued).toBeUndefined();
    expect((await lock.read({ key })).waiters).toEqual([
      expect.objectContaining({ holder: "run-c", taken: false }),
    ]);
  });
});
