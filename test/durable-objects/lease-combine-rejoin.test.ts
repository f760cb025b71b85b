/**
 * A waiter that joins the queue again with other changes than its entry holds (docs/design.md,
 * "Write combining: the lock object's side"): a run whose call was lost while queued, whose group
 * then failed, may come back for the same object with another group — the removal that resolves
 * the create it had queued. Its entry's changes were never anyone's to write when no holder took
 * them: the new changes replace them. Taken by a holder, they may still be written: the new call is
 * refused, so no holder writes the old create in place of the removal, and no removal is answered
 * with the create's outcome.
 */
import { describe, it } from "vitest";
import type { QueuedChange } from "../../shared/schemas/combine";
import { freshScopeKey, granted, refused, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const OWNER_B = "186853002/preview/pr-2";
const URL = "https://pr-2.example.com/cb";

function change(action: "create" | "remove"): QueuedChange {
  return {
    // As the engine names a change (combining.ts changeId): its action is part of its id.
    id: `${action}\nauth0.callbacks\n${URL}`,
    action,
    op: "auth0.callbacks",
    key: URL,
    params: { url: URL },
    connection: "auth0-tenant.us.auth0.com",
    owner: OWNER_B,
    environment: "preview",
    runId: "run-b",
  };
}

function setup() {
  const key = freshScopeKey("rejoin");
  const queue = (changes: QueuedChange[]) =>
    stub(key).acquireOrCombine({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: 60_000,
      changes,
    });
  return { key, lock: stub(key), queue };
}

describe("a waiter joining again with other changes", () => {
  it("never taken: the removal replaces the create it queued before, and the holder is offered the removal", async ({
    expect,
  }) => {
    const { key, lock, queue } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    void queue([change("create")]);
    const again = queue([change("remove")]);
    const taken = granted(await lock.takeQueued({ key, holder: "run-a", token: a.token }));
    expect(taken.waiters).toEqual([{ waiter: "run-b", changes: [change("remove")] }]);
    await lock.release({ key, holder: "run-a", token: a.token });
    expect(granted(await again).grant).toMatchObject({ holder: "run-b" });
  });

  it("taken by a holder: the removal is refused, retriable, and the holder still has only the create", async ({
    expect,
  }) => {
    const { key, lock, queue } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    void queue([change("create")]);
    const taken = granted(await lock.takeQueued({ key, holder: "run-a", token: a.token }));
    expect(taken.waiters).toEqual([{ waiter: "run-b", changes: [change("create")] }]);
    const error = refused(await queue([change("remove")]));
    expect(error.code).toBe("CONCURRENT_MODIFICATION");
    expect(error.message).toContain("may still be written");
    expect((await lock.read({ key })).waiters).toEqual([
      expect.objectContaining({ holder: "run-b", changes: 1, taken: true }),
    ]);
    await lock.release({ key, holder: "run-a", token: a.token });
  });

  it("control: the same changes again re-attach to the entry a holder took (a retried call)", async ({
    expect,
  }) => {
    const { key, lock, queue } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    void queue([change("create")]);
    granted(await lock.takeQueued({ key, holder: "run-a", token: a.token }));
    const retried = queue([change("create")]);
    await lock.reportCombined({
      key,
      holder: "run-a",
      token: a.token,
      reports: [
        { waiter: "run-b", applied: [{ id: change("create").id, outcome: "written" }], returned: [] },
      ],
      ownerChanges: [{ action: "add", op: "auth0.callbacks", key: URL, owner: OWNER_B }],
    });
    expect(granted(await retried)).toMatchObject({ grant: null, combined: { by: "run-a" } });
    await lock.release({ key, holder: "run-a", token: a.token });
  });
});

describe("a stored combined answer", () => {
  it("keeps the holder's repository: a later grant names the same repository's holder", async ({
    expect,
  }) => {
    const { key, lock, queue } = setup();
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const [done, back] = [
      change("create"),
      { ...change("create"), id: "create\nauth0.callbacks\nx", key: "x" },
    ];
    const waiting = queue([done, back]);
    granted(await lock.takeQueued({ key, holder: "run-a", token: a.token }));
    granted(
      await lock.reportCombined({
        key,
        holder: "run-a",
        token: a.token,
        repository: 186853002,
        reports: [
          {
            waiter: "run-b",
            applied: [{ id: done.id, outcome: "written" }],
            returned: [{ id: back.id, error: { code: "PROVIDER_ERROR", message: "refused" } }],
          },
        ],
        ownerChanges: [{ action: "add", op: "auth0.callbacks", key: URL, owner: OWNER_B }],
      }),
    );
    await lock.release({ key, holder: "run-a", token: a.token });
    // The later grant's answer is read back from storage.
    expect(granted(await waiting).combined).toMatchObject({ by: "run-a", repository: 186853002 });
  });
});
