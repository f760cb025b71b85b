/**
 * The lock object's side of intents a scope lock of 0.1.x kept (durable-objects/legacy-intents.ts;
 * docs/upgrading.md): no lock takes new ones; a lock still keeping some says so with every grant
 * and claim, answers them only to the holder of its lease (`drainLegacyIntents`), drops exactly the
 * rows that holder's drain names, and keeps its pending-intents index entry while any row is left.
 * The rows are written straight into the lock's storage as 0.1.x wrote them (./legacy-state.ts).
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, it } from "vitest";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import type { Intent } from "../../shared/schemas/receipt";
import { expireLeaseNow, freshScopeKey, granted, rawStub, refused, stub } from "../helpers/locks";
import { legacyIndexed, legacyRows, putLegacyIntents } from "./legacy-state";

const TTL_MS = 30_000;

function intent(runId: string, key: string, action: "create" | "remove" = "create"): Intent {
  return {
    action,
    line: "callback",
    op: "auth0.callbackUrl",
    connection: "auth0",
    params: {},
    key,
    parent: "auth0:tenant:client:app",
    runId,
    at: 1_000,
    claims: true,
  };
}

/** The object writes a missing entry behind the call that started it: polled, as R2 settles. */
async function untilIndexed(key: string, wanted: boolean): Promise<boolean> {
  for (let i = 0; i < 1_000; i++) {
    if ((await legacyIndexed(key)) === wanted) return wanted;
    await scheduler.wait(1);
  }
  return !wanted;
}

describe("a scope lock keeping intents of 0.1.x", () => {
  it("every grant and claim says so while rows remain; a lock without rows says nothing", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    expect(a.legacyIntents).toBeUndefined();
    granted(await stub(key).release({ key, holder: "run-a", token: a.token }));
    await putLegacyIntents(key, [intent("run-dead", "u1")]);

    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(b.legacyIntents).toBe(true);
    // A waiter's grant is confirmed by its claim, which says it too.
    const waiting = stub(key).acquire({
      key,
      holder: "run-c",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: 10_000,
    });
    granted(await stub(key).release({ key, holder: "run-b", token: b.token }));
    const handed = granted(await waiting);
    const claimed = granted(await stub(key).claim({ key, holder: "run-c", token: handed.token }));
    expect(claimed.legacyIntents).toBe(true);
  });

  it("the lock object takes no intents: it has no putIntents", async ({ expect }) => {
    const key = freshScopeKey();
    const kind = await runInDurableObject(
      rawStub(key),
      async (instance: LeaseLock) => typeof (instance as unknown as Record<string, unknown>).putIntents,
    );
    expect(kind).toBe("undefined");
  });

  it("only the holder of the lease is answered the rows: anyone else is refused LOCK_LOST", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    await putLegacyIntents(key, [intent("run-dead", "u1"), intent("run-dead", "u2", "remove")]);
    expect(refused(await stub(key).drainLegacyIntents({ key, holder: "upgrade-x", token: 1 })).code).toBe(
      "LOCK_LOST",
    );
    const lease = granted(await stub(key).acquire({ key, holder: "upgrade-a", ttlMs: TTL_MS }));
    expect(
      refused(await stub(key).drainLegacyIntents({ key, holder: "upgrade-b", token: lease.token })).code,
    ).toBe("LOCK_LOST");
    const kept = granted(
      await stub(key).drainLegacyIntents({ key, holder: "upgrade-a", token: lease.token }),
    );
    expect(kept).toEqual([
      { ...intent("run-dead", "u1"), lockSeq: 1 },
      { ...intent("run-dead", "u2", "remove"), lockSeq: 1 },
    ]);
    // Reading changes nothing.
    expect(await legacyRows(key)).toBe(2);
  });

  it("a drop removes exactly the rows it names; once none is left, grants stop saying so and the index entry goes", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    await putLegacyIntents(key, [intent("run-dead", "u1"), intent("run-dead", "u2")]);
    // Started keeping rows with no entry (a lease of 0.1.x that ended under this version): written.
    await stub(key).read({ key });
    expect(await untilIndexed(key, true)).toBe(true);

    const lease = granted(await stub(key).acquire({ key, holder: "upgrade-a", ttlMs: TTL_MS }));
    const fenced = { key, holder: "upgrade-a", token: lease.token };
    const [first] = granted(await stub(key).drainLegacyIntents(fenced));
    if (!first) throw new Error("no row");
    const left = granted(await stub(key).drainLegacyIntents({ ...fenced, drop: [first] }));
    expect(left.map((i) => i.key)).toEqual(["u2"]);
    expect(await legacyIndexed(key)).toBe(true);

    expect(granted(await stub(key).drainLegacyIntents({ ...fenced, drop: left }))).toEqual([]);
    expect(await legacyRows(key)).toBe(0);
    expect(await legacyIndexed(key)).toBe(false);
    granted(await stub(key).release(fenced));
    const next = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(next.legacyIntents).toBeUndefined();
  });

  it("no end of a lease drops a row (a release that says its save settled them, a force-release, an expiry): only a drain's drop does", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    await putLegacyIntents(key, [intent("run-dead", "u1")]);
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    // What a holder of 0.2.0 sent after its final save: this version takes nothing from it.
    const settled = {
      key,
      holder: "run-a",
      token: a.token,
      receiptEtag: "0".repeat(32),
      intentsSettled: true,
    };
    granted(await stub(key).release(settled));
    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(b.legacyIntents).toBe(true);
    granted(await stub(key).forceRelease({ key, reason: "test", actor: "admin" }));
    await expireLeaseNow(key);
    const c = granted(await stub(key).acquire({ key, holder: "run-c", ttlMs: TTL_MS }));
    expect(c.legacyIntents).toBe(true);
    await expireLeaseNow(key);
    const d = granted(await stub(key).acquire({ key, holder: "run-d", ttlMs: TTL_MS }));
    expect(d.legacyIntents).toBe(true);
    expect(await legacyRows(key)).toBe(1);
  });
});
