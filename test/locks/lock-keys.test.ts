/**
 * Lock keys (docs/design.md, "Vocabulary"): scope keys, parent keys from a hash, and identities holding a
 * secret.
 */
import { listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { SponsonError } from "../../shared/errors";
import { HELD_INDEX_PREFIX } from "../../shared/lock-index";
import { parentLockKey, parseLockKey, scopeLockKey } from "../../shared/lock-keys";
import { SecretRegistry } from "../../shared/secrets";
import { granted, stub } from "../helpers/locks";

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function indexedBodies(): Promise<string[]> {
  const listed = await env.RECEIPTS.list({ prefix: HELD_INDEX_PREFIX });
  return Promise.all(listed.objects.map(async (o) => (await env.RECEIPTS.get(o.key))?.text() ?? ""));
}

/** Every meta value of every lease object that exists: where an identity would be stored. */
async function everyStoredMetaValue(): Promise<string[]> {
  const ids = await listDurableObjectIds(env.LEASE_LOCK);
  const perObject = await Promise.all(
    ids.map((id) =>
      runInDurableObject(env.LEASE_LOCK.get(id), async (_instance: LeaseLock, state) =>
        state.storage.sql
          .exec<{ v: string }>("SELECT v FROM meta")
          .toArray()
          .map((r) => r.v),
      ),
    ),
  );
  return perObject.flat();
}

describe("lock keys", () => {
  it("a scope lock is scope:<repository id>/<environment>/<scope>, and a bare hash is not a scope", async ({
    expect,
  }) => {
    expect(scopeLockKey(186853002, "preview", "pr-12")).toBe("scope:186853002/preview/pr-12");
    expect(scopeLockKey(7, "preview", "branch-feat/x")).toBe("scope:7/preview/branch-feat/x");
    expect(() => scopeLockKey(7, "preview", "0123abcd")).toThrow(SponsonError);
    expect(() => scopeLockKey(7, "_locks", "main")).toThrow(SponsonError);
    expect(() => scopeLockKey(0, "preview", "main")).toThrow(SponsonError);
    expect(() => scopeLockKey(1.5, "preview", "main")).toThrow(SponsonError);
  });

  it("a scope lock key parses back to its repository id, environment and scope", async ({ expect }) => {
    expect(parseLockKey("scope:42/preview/pr-5")).toEqual({
      kind: "scope",
      repositoryId: 42,
      environment: "preview",
      scope: "pr-5",
    });
    expect(parseLockKey(scopeLockKey(9, "staging", "branch-a/b"))).toMatchObject({
      repositoryId: 9,
      scope: "branch-a/b",
    });
    // The format before scopes carried a repository, and keys naming the repository, are not scope keys.
    expect(parseLockKey("scope:preview/pr-5")).toBeNull();
    expect(parseLockKey("scope:acme/web/preview/pr-5")).toBeNull();
    expect(parseLockKey("scope:042/preview/pr-5")).toBeNull();
  });

  it("a parent lock is _locks/ and the first 32 hex digits of sha256(identity)", async ({ expect }) => {
    const identity = "auth0:tenant-1:client:abc123";
    const key = await parentLockKey(identity, new SecretRegistry());
    expect(key).toBe(`_locks/${(await sha256Hex(identity)).slice(0, 32)}`);
    // Control: an allowed identity is stored and shown with its lock.
    const grant = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: 30_000, identity }));
    expect((await stub(key).read({ key })).identity).toBe(identity);
    await stub(key).release({ key, holder: "run-a", token: grant.token });
  });

  it("an identity holding a registered secret is refused with INTERNAL and never stored", async ({
    expect,
  }) => {
    const secret = "sk_live_9f8e7d6c5b4a";
    const secrets = new SecretRegistry();
    secrets.register(secret);
    const identity = `supabase:project-x:key:${secret}`;
    // Control: a clean identity is locked the usual way and does show up in storage.
    const clean = "supabase:project-x";
    const cleanKey = await parentLockKey(clean, secrets);
    granted(await stub(cleanKey).acquire({ key: cleanKey, holder: "run-a", ttlMs: 30_000, identity: clean }));
    // The index entry is written behind the answer; a read of the lock waits for it.
    await stub(cleanKey).read({ key: cleanKey });

    const refusal = await parentLockKey(identity, secrets).then(
      () => null,
      (err: unknown) => err,
    );

    expect(refusal).toBeInstanceOf(SponsonError);
    expect(refusal).toMatchObject({ code: "INTERNAL" });
    expect(String((refusal as SponsonError).message)).not.toContain(secret);
    expect(JSON.stringify((refusal as SponsonError).toInfo())).not.toContain(secret);
    // No key came out, so no lock object or index entry holds it.
    const stored = await everyStoredMetaValue();
    expect(stored).toContain(clean);
    expect(stored.some((v) => v.includes(secret))).toBe(false);
    const bodies = await indexedBodies();
    expect(bodies.some((body) => body.includes(clean))).toBe(true);
    expect(bodies.some((body) => body.includes(secret))).toBe(false);
  });
});
