/**
 * A waiter whose changes a live holder took is not timed out by the lock object (docs/design.md,
 * "Write combining: the lock object's side"): the holder may be writing them right now, so a
 * refusal would make the waiter drop intents for entries that are about to exist. It waits for the
 * report, or for the end of the lease that took them; only then does its own timeout apply, and
 * the refusal says whether its changes were ever taken.
 *
 * The waiter is queued and taken in one synchronous turn inside the object, so the take always
 * comes before the waiter's (short) timeout; the test then lets that timeout pass.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, it } from "vitest";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import type { Result } from "../../shared/errors";
import type { GrantOrCombined, QueuedChange } from "../../shared/schemas/combine";
import { freshScopeKey, granted, rawStub, refused, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const SHORT_WAIT_MS = 20;
const OWNER_B = "186853002/preview/pr-2";

function change(url: string): QueuedChange {
  return {
    id: `callback\n${url}`,
    action: "create",
    op: "auth0.callbackUrl",
    key: url,
    params: { url },
    connection: "auth0-tenant.us.auth0.com",
    owner: OWNER_B,
    environment: "preview",
    runId: "run-b",
  };
}

/**
 * run-a holds the lock; run-b queues with `changes` and a short wait timeout; if `take`, run-a
 * takes them in the same turn. Returns run-b's open call once its timeout has passed.
 */
async function queuedPastItsTimeout(key: string, changes: QueuedChange[], take: boolean) {
  const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
  const waiting = await runInDurableObject(rawStub(key), async (lock: LeaseLock) => {
    const call = lock.acquireOrCombine({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: SHORT_WAIT_MS,
      changes,
    });
    if (take) granted(await lock.takeQueued({ key, holder: "run-a", token: a.token }));
    // Timers fire in the order they are due: the waiter's timeout has run when this one does.
    await scheduler.wait(SHORT_WAIT_MS * 5);
    return { call };
  });
  return { token: a.token, call: waiting.call as Promise<Result<GrantOrCombined>> };
}

describe("a taken waiter's wait timeout", () => {
  it("taken by the live holder: still queued after its timeout, then answered by the report", async ({
    expect,
  }) => {
    const key = freshScopeKey("taken-wait");
    const changes = [change("https://pr-2.example.com/callback")];
    const { token, call } = await queuedPastItsTimeout(key, changes, true);
    expect((await stub(key).read({ key })).waiters).toEqual([
      expect.objectContaining({ holder: "run-b", taken: true }),
    ]);
    granted(
      await stub(key).reportCombined({
        key,
        holder: "run-a",
        token,
        reports: [
          { waiter: "run-b", applied: [{ id: changes[0]?.id ?? "", outcome: "written" }], returned: [] },
        ],
        ownerChanges: [
          { action: "add", op: "auth0.callbackUrl", key: changes[0]?.key ?? "", owner: OWNER_B },
        ],
      }),
    );
    const answer = granted(await call);
    expect(answer.grant).toBeNull();
    expect(answer.combined?.outcomes).toEqual([{ id: changes[0]?.id, outcome: "written" }]);
    expect((await stub(key).read({ key })).waiters).toEqual([]);
  });

  it("taken, then returned by the report: its timeout applies then, and the refusal does not vouch for its changes", async ({
    expect,
  }) => {
    const key = freshScopeKey("taken-wait");
    const changes = [change("https://pr-2.example.com/callback")];
    const { token, call } = await queuedPastItsTimeout(key, changes, true);
    granted(
      await stub(key).reportCombined({
        key,
        holder: "run-a",
        token,
        reports: [
          {
            waiter: "run-b",
            applied: [],
            returned: [{ id: changes[0]?.id ?? "", error: { code: "PROVIDER_ERROR", message: "timed out" } }],
          },
        ],
      }),
    );
    const error = refused(await call);
    expect(error.code).toBe("LOCK_HELD");
    // The holder's write may have reached the provider: the waiter must keep its intents.
    expect(error.detail?.untaken).toBeUndefined();
    expect((await stub(key).read({ key })).waiters).toEqual([]);
  });

  it("taken, and the holder's lease ends without a report: the waiter is granted, told its changes were taken", async ({
    expect,
  }) => {
    const key = freshScopeKey("taken-wait");
    const { token, call } = await queuedPastItsTimeout(key, [change("https://pr-2.example.com/x")], true);
    await stub(key).release({ key, holder: "run-a", token });
    const answer = granted(await call);
    expect(answer.grant).toMatchObject({ holder: "run-b", token: token + 1 });
    expect(answer.taken).toBe(true);
  });

  it("never taken: refused at its timeout as before, vouching that nothing of it was taken", async ({
    expect,
  }) => {
    const key = freshScopeKey("taken-wait");
    const { call } = await queuedPastItsTimeout(key, [change("https://pr-2.example.com/y")], false);
    const error = refused(await call);
    expect(error.code).toBe("LOCK_HELD");
    expect(error.detail?.untaken).toBe(true);
    expect((await stub(key).read({ key })).waiters).toEqual([]);
  });
});
