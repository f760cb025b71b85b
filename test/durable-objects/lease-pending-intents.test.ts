/**
 * Intents a scope lock of the version before issue 29 kept (docs/design.md, "Intent recovery":
 * upgrading; docs/storage.md): no lock takes new ones, but what that version's `putIntents` left is
 * handed to every next grant until a holder's release says its receipt save holds them, and indexed
 * in R2 while the lock is free with intents no receipt holds, so the sweep finds the scope. The
 * rows are written straight into the lock's storage as that version wrote them
 * (test/helpers/legacy-intents.ts).
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { pendingIntentsIndexKey } from "../../shared/lock-index";
import type { Intent } from "../../shared/schemas/receipt";
import { listPendingScopes } from "../../workers/locks/pending-scopes";
import { legacyRows, putLegacyIntents } from "../helpers/legacy-intents";
import { expireLeaseNow, freshScopeKey, granted, rawStub, stub } from "../helpers/locks";

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

async function indexed(key: string): Promise<boolean> {
  await stub(key).read({ key }); // settles the object's background index writes
  return (await env.RECEIPTS.head(pendingIntentsIndexKey(key))) !== null;
}

describe("intents kept by the scope lock", () => {
  it("what the old version kept goes to every next grant until a settled release, then never again", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    expect(a.pendingIntents).toBeUndefined();
    expect(await putLegacyIntents(key, [intent("run-a", "u1")])).toBe(1);
    expect(await stub(key).pendingIntents({ key })).toEqual([{ ...intent("run-a", "u1"), lockSeq: 1 }]);
    // A release whose save did not hold them (a failed save): the next holder gets them.
    granted(await stub(key).release({ key, holder: "run-a", token: a.token }));
    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(b.pendingIntents).toEqual([{ ...intent("run-a", "u1"), lockSeq: 1 }]);
    // The grant says nothing of the old numbering: the intents carry their own numbers.
    expect(Object.keys(b)).not.toContain("intentSeq");
    granted(
      await stub(key).release({
        key,
        holder: "run-b",
        token: b.token,
        receiptEtag: "e",
        intentsSettled: true,
      }),
    );
    expect(await stub(key).pendingIntents({ key })).toEqual([]);
    expect(await legacyRows(key)).toBe(0);
    expect(
      granted(await stub(key).acquire({ key, holder: "run-c", ttlMs: TTL_MS })).pendingIntents,
    ).toBeUndefined();
  });

  it("the lock object takes no intents: it has no putIntents any more", async ({ expect }) => {
    const key = freshScopeKey();
    const kind = await runInDurableObject(
      rawStub(key),
      async (instance: LeaseLock) => typeof (instance as unknown as Record<string, unknown>).putIntents,
    );
    expect(kind).toBe("undefined");
  });

  it("without its alarm, the next read that finds the lease ended indexes the dead holder's intents", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    granted(await stub(key).acquire({ key, holder: "run-dead", ttlMs: TTL_MS }));
    await putLegacyIntents(key, [intent("run-dead", "u1")]);
    await expireLeaseNow(key);
    // As if the expiry alarm never fired.
    await runInDurableObject(rawStub(key), (_instance: LeaseLock, state) => state.storage.deleteAlarm());
    expect(await indexed(key)).toBe(true);
  });

  it("a holder that dies keeping intents: the alarm's expiry indexes the scope; the next settled release removes the entry", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    granted(await stub(key).acquire({ key, holder: "run-dead", ttlMs: TTL_MS }));
    await putLegacyIntents(key, [intent("run-dead", "u1")]);
    expect(await indexed(key)).toBe(false); // held: its own holder settles them
    await expireLeaseNow(key);
    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);
    expect(await indexed(key)).toBe(true);
    const scope = key.split("/").slice(2).join("/");
    expect((await listPendingScopes(env)).map((s) => s.scope)).toContain(scope);

    const b = granted(await stub(key).acquire({ key, holder: "run-recover", ttlMs: TTL_MS }));
    expect(b.pendingIntents).toEqual([{ ...intent("run-dead", "u1"), lockSeq: 1 }]);
    granted(await stub(key).release({ key, holder: "run-recover", token: b.token, intentsSettled: true }));
    expect(await indexed(key)).toBe(false);
  });

  it("a force-release keeps the intents (its holder may have written) and indexes them", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    granted(await stub(key).acquire({ key, holder: "run-stuck", ttlMs: TTL_MS }));
    await putLegacyIntents(key, [intent("run-stuck", "u1")]);
    granted(await stub(key).forceRelease({ key, reason: "stuck", actor: "admin" }));
    expect(await indexed(key)).toBe(true);
    expect(granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS })).pendingIntents).toEqual([
      { ...intent("run-stuck", "u1"), lockSeq: 1 },
    ]);
  });
});
