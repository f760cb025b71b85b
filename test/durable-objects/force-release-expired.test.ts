/**
 * docs/design.md, "Lease protocol": a lease that expired is not granted to anyone else until the
 * lock-delay after its expiry has passed (its holder's last write may still land). An admin's
 * force-release that reaches the object after the expiry, before the alarm freed the row, ended it
 * as "force-released" (no lock-delay) and answered `released`, as if a live lease had been taken away.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { lockStub } from "../../workers/locks/lock-target";
import { expireLeaseJustNow } from "../helpers/locks";

const freshKey = () => `scope:1/preview/pr-force-${crypto.randomUUID().slice(0, 8)}`;

describe("force-release of a lease that has already expired", () => {
  it("ends it as the expiry it is: the lock-delay after that expiry still applies", async () => {
    const key = freshKey();
    const stub = lockStub(env, key);
    expect((await stub.acquire({ key, holder: "run-dead", ttlMs: 30_000 })).ok).toBe(true);
    await expireLeaseJustNow(key);

    const forced = await stub.forceRelease({ key, reason: "looks stuck", actor: "admin" });

    expect(forced.ok && forced.value).toMatchObject({ released: true, reason: "released-expired" });
    expect((await stub.acquire({ key, holder: "run-next", ttlMs: 30_000 })).ok).toBe(false);
    const lock = await stub.read({ key });
    expect(lock.history.at(-1)?.transition).toBe("expired");
  });

  it("a waiter's grant never claimed ends as a lapsed claim: answered released, the next holder granted at once (nobody wrote)", async () => {
    const key = freshKey();
    const stub = lockStub(env, key);
    const a = await stub.acquire({ key, holder: "run-a", ttlMs: 30_000 });
    if (!a.ok) throw new Error("run-a was not granted");
    // Its caller is gone: nobody claims what it is granted.
    const b = stub.acquire({ key, holder: "run-b", ttlMs: 30_000, wait: true, waitTimeoutMs: 60_000 });
    await stub.release({ key, holder: "run-a", token: a.value.token });
    expect((await b).ok).toBe(true);
    await expireLeaseJustNow(key);

    const forced = await stub.forceRelease({ key, reason: "looks stuck", actor: "admin" });

    expect(forced.ok && forced.value).toMatchObject({ released: true, reason: "released" });
    expect((await stub.acquire({ key, holder: "run-next", ttlMs: 30_000 })).ok).toBe(true);
    const lock = await stub.read({ key });
    expect(lock.history.map((h) => h.transition)).toContain("claim-lapsed");
  });

  it("control: a live lease is taken away at once, with no lock-delay", async () => {
    const key = freshKey();
    const stub = lockStub(env, key);
    expect((await stub.acquire({ key, holder: "run-live", ttlMs: 30_000 })).ok).toBe(true);

    const forced = await stub.forceRelease({ key, reason: "stuck", actor: "admin" });

    expect(forced.ok && forced.value).toMatchObject({ released: true, reason: "released" });
    expect((await stub.acquire({ key, holder: "run-next", ttlMs: 30_000 })).ok).toBe(true);
  });
});
