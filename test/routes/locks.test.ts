/**
 * The lock routes (docs/api.md, "Routes") through the Worker's own fetch: the listing built from the R2
 * index and checked against each lock's object, one lock by URL-encoded key, and admin force-release.
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { heldIndexKey } from "../../shared/lock-index";
import { parentLockKey } from "../../shared/lock-keys";
import type { LockState } from "../../shared/schemas/lock";
import { SecretRegistry } from "../../shared/secrets";
import { freshScopeKey, granted, rawStub, stub } from "../helpers/locks";
import { bearer } from "../helpers/tokens";

const TTL_MS = 30_000;
const worker = (exports as unknown as { default: Fetcher }).default;

async function call(method: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = { ...(await bearer("admin")), ...(init.headers as Record<string, string> | undefined) };
  return worker.fetch(new Request(`http://x${path}`, { ...init, method, headers }));
}

/** Index writes run behind the answer; a read of the lock waits for them (and repairs a lost one). */
async function indexSettled(key: string): Promise<void> {
  await stub(key).read({ key });
}

const lockPath = (key: string) => `/v1/locks/${encodeURIComponent(key)}`;

async function listed(): Promise<LockState[]> {
  const res = await call("GET", "/v1/locks");
  if (res.status !== 200) throw new Error(`GET /v1/locks: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { locks: LockState[] }).locks;
}

async function problemOf(res: Response): Promise<{ status: number; type: string | null; body: unknown }> {
  return { status: res.status, type: res.headers.get("content-type"), body: await res.json() };
}

describe("GET /v1/locks", () => {
  it("lists a held scope lock and a held parent lock with its identity, not a released one", async ({
    expect,
  }) => {
    const scopeKey = freshScopeKey("listed");
    const identity = "auth0:tenant-1:client:listed";
    const parentKey = await parentLockKey(identity, new SecretRegistry());
    const releasedKey = freshScopeKey("released");
    const s = granted(await stub(scopeKey).acquire({ key: scopeKey, holder: "run-a", ttlMs: TTL_MS }));
    const p = granted(
      await stub(parentKey).acquire({ key: parentKey, holder: "run-a", ttlMs: TTL_MS, identity }),
    );
    const r = granted(await stub(releasedKey).acquire({ key: releasedKey, holder: "run-b", ttlMs: TTL_MS }));
    granted(await stub(releasedKey).release({ key: releasedKey, holder: "run-b", token: r.token }));
    // The index is written off the answer path; a read of each lock waits for (and repairs) it.
    for (const key of [scopeKey, parentKey, releasedKey]) await stub(key).read({ key });

    const locks = await listed();

    expect(locks.find((l) => l.key === scopeKey)).toMatchObject({
      kind: "scope",
      identity: null,
      holder: "run-a",
      token: s.token,
      since: s.acquiredAt,
      expiresAt: s.expiresAt,
      waiters: [],
    });
    expect(locks.find((l) => l.key === parentKey)).toMatchObject({
      kind: "parent",
      identity,
      holder: "run-a",
      token: p.token,
    });
    expect(locks.map((l) => l.key)).not.toContain(releasedKey);
    expect(locks.every((l) => l.held)).toBe(true);
  });

  it("a stale index entry left by a lost delete is not listed, and reading the lock removes it", async ({
    expect,
  }) => {
    const key = freshScopeKey("stale");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    granted(await stub(key).release({ key, holder: "run-a", token: a.token }));
    await indexSettled(key);
    // As if the index delete at release had failed: the entry and the object's marker remain.
    await env.RECEIPTS.put(heldIndexKey(key), JSON.stringify({ key, kind: "scope", identity: null }));
    await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
      state.storage.sql.exec("INSERT OR REPLACE INTO meta (k, v) VALUES ('indexed', '1')");
    });

    expect((await listed()).map((l) => l.key)).not.toContain(key);
    expect(await env.RECEIPTS.head(heldIndexKey(key))).toBeNull();
  });

  it("an index entry naming a lock that was never taken is not listed", async ({ expect }) => {
    const key = freshScopeKey("ghost");
    await env.RECEIPTS.put(heldIndexKey(key), JSON.stringify({ key, kind: "scope", identity: null }));
    expect((await listed()).map((l) => l.key)).not.toContain(key);
  });

  it("a lost index add is repaired by the holder's next renewal", async ({ expect }) => {
    const key = freshScopeKey("missed");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await indexSettled(key);
    // As if the index put at acquire had failed: no entry, and the object knows it is not indexed.
    await env.RECEIPTS.delete(heldIndexKey(key));
    await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
      state.storage.sql.exec("UPDATE meta SET v = '0' WHERE k = 'indexed'");
    });
    expect((await listed()).map((l) => l.key)).not.toContain(key);
    granted(await stub(key).renew({ key, holder: "run-a", token: a.token }));

    // The renewal answers first and re-adds the entry behind its answer: wait for the entry itself
    // (a read of the lock would repair it too, and so prove nothing about the renewal).
    const deadline = Date.now() + 5_000;
    while ((await env.RECEIPTS.head(heldIndexKey(key))) === null && Date.now() < deadline) {
      // Each head is I/O, which is what lets the object's background write make progress.
    }
    expect((await listed()).map((l) => l.key)).toContain(key);
  });
});

describe("GET /v1/locks/{key}", () => {
  it("reads one lock from its own object by its URL-encoded key", async ({ expect }) => {
    const identity = "gcs:bucket:previews";
    const key = await parentLockKey(identity, new SecretRegistry());
    const grant = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS, identity }));

    const res = await call("GET", lockPath(key));

    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      key,
      kind: "parent",
      identity,
      held: true,
      holder: "run-a",
      token: grant.token,
      history: [{ transition: "acquired", holder: "run-a", token: grant.token }],
    });
  });

  it("a scope key with its slash encoded reads the same lock", async ({ expect }) => {
    const key = freshScopeKey("encoded");
    granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    expect(lockPath(key)).toContain("%2F");
    const res = await call("GET", lockPath(key));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ key, kind: "scope", holder: "run-a" });
  });

  it("a key that is not a lock key is a 404 problem", async ({ expect }) => {
    const res = await call("GET", lockPath("not-a-lock"));
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });
});

describe("DELETE /v1/locks/{key}", () => {
  it("force-releases with a reason, recorded in the lock's history", async ({ expect }) => {
    const key = freshScopeKey("forced");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));

    const res = await call("DELETE", lockPath(key), {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: "runner was cancelled" }),
    });

    expect(res.status).toBe(200);
    const body = (await res.json()) as { released: boolean; lock: LockState };
    expect(body).toMatchObject({ released: true, lock: { key, held: false } });
    const forced = body.lock.history.find((h) => h.transition === "force-released");
    expect(forced).toMatchObject({ holder: "run-a", token: a.token });
    expect(forced?.note).toContain("runner was cancelled");
    expect(forced?.note).toContain("test-admin");
    expect((await listed()).map((l) => l.key)).not.toContain(key);
  });

  const badBodies: Array<[string, RequestInit]> = [
    ["malformed JSON", { headers: { "content-type": "application/json" }, body: "{ reason: " }],
    ["an empty JSON body", { headers: { "content-type": "application/json" }, body: "" }],
    ["no reason", { headers: { "content-type": "application/json" }, body: "{}" }],
    ["a blank reason", { headers: { "content-type": "application/json" }, body: '{"reason":"  "}' }],
    ["a numeric reason", { headers: { "content-type": "application/json" }, body: '{"reason":42}' }],
    ["an array body", { headers: { "content-type": "application/json" }, body: '["reason"]' }],
    ["a text/plain body", { headers: { "content-type": "text/plain" }, body: "because" }],
    ["no body at all", {}],
  ];
  for (const [what, init] of badBodies) {
    it(`${what} is a 400 VALIDATION problem and the lock stays held`, async ({ expect }) => {
      const key = freshScopeKey("bad-body");
      const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
      expect(await problemOf(await call("DELETE", lockPath(key), init))).toMatchObject({
        status: 400,
        type: "application/problem+json",
        body: { status: 400, code: "VALIDATION" },
      });
      expect(await stub(key).read({ key })).toMatchObject({ held: true, holder: "run-a", token: a.token });
    });
  }

  it("an unknown key is a 404 problem", async ({ expect }) => {
    const res = await call("DELETE", lockPath("nope"), {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: "x" }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "NOT_FOUND" });
  });
});
