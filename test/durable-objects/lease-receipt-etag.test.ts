/**
 * The receipt etag a scope lock hands from one holder to the next (docs/design.md, "Run algorithm"):
 * the holder that saved the receipt names its etag in `release`, and the next grant answers it, but
 * only while it is known true — nothing but a holder's own release after its save sets it, and an
 * expiry, a force-release, a takeover or a release without it forgets it.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, it } from "vitest";
import { expireLeaseNow, freshScopeKey, granted, rawStub, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const LONG_WAIT_MS = 60_000;

async function holdThenRelease(key: string, holder: string, receiptEtag?: string) {
  const grant = granted(await stub(key).acquire({ key, holder, ttlMs: TTL_MS }));
  const release = receiptEtag === undefined ? {} : { receiptEtag };
  granted(await stub(key).release({ key, holder, token: grant.token, ...release }));
  return grant;
}

describe("the receipt etag handed over with the scope lease", () => {
  it("a lock nobody released with an etag grants none", async ({ expect }) => {
    const key = freshScopeKey();
    const grant = await holdThenRelease(key, "run-a");
    expect(grant.receiptEtag).toBeUndefined();
    const next = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(next.receiptEtag).toBeUndefined();
  });

  it("the etag a holder released with is the next grant's, and the one after keeps it until a release", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    await holdThenRelease(key, "run-a", '"etag-1"');
    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(b.receiptEtag).toBe('"etag-1"');
    // A renewal (the claim of a waiter's grant is one) answers the same: the etag at the grant.
    expect(granted(await stub(key).renew({ key, holder: "run-b", token: b.token })).receiptEtag).toBe(
      '"etag-1"',
    );
    granted(await stub(key).release({ key, holder: "run-b", token: b.token, receiptEtag: '"etag-2"' }));
    expect(granted(await stub(key).acquire({ key, holder: "run-c", ttlMs: TTL_MS })).receiptEtag).toBe(
      '"etag-2"',
    );
  });

  it("a waiter granted the lock on release gets the etag with its grant and its claim", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = stub(key).acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: LONG_WAIT_MS,
    });
    expect((await stub(key).read({ key })).waiters).toHaveLength(1);
    granted(await stub(key).release({ key, holder: "run-a", token: a.token, receiptEtag: '"etag-1"' }));
    const b = granted(await waiting);
    expect(b.receiptEtag).toBe('"etag-1"');
    expect(granted(await stub(key).claim({ key, holder: "run-b", token: b.token })).receiptEtag).toBe(
      '"etag-1"',
    );
  });

  it("a release without an etag (the holder's save failed, or it never saved) forgets the last one", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    await holdThenRelease(key, "run-a", '"etag-1"');
    await holdThenRelease(key, "run-b");
    expect(
      granted(await stub(key).acquire({ key, holder: "run-c", ttlMs: TTL_MS })).receiptEtag,
    ).toBeUndefined();
  });

  it("a holder that expired without releasing (it may have saved) leaves no etag: neither the alarm's expiry nor a takeover", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    await holdThenRelease(key, "run-a", '"etag-1"');
    granted(await stub(key).acquire({ key, holder: "run-crashed", ttlMs: TTL_MS }));
    await expireLeaseNow(key);
    // Taken over: no alarm ran, the acquire noticed the expiry itself.
    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(b.receiptEtag).toBeUndefined();

    const other = freshScopeKey();
    await holdThenRelease(other, "run-a", '"etag-1"');
    granted(await stub(other).acquire({ key: other, holder: "run-crashed", ttlMs: TTL_MS }));
    await expireLeaseNow(other);
    expect(await runDurableObjectAlarm(rawStub(other))).toBe(true);
    expect(
      granted(await stub(other).acquire({ key: other, holder: "run-b", ttlMs: TTL_MS })).receiptEtag,
    ).toBeUndefined();
  });

  it("a release that comes after the lease expired hands no etag on", async ({ expect }) => {
    const key = freshScopeKey();
    await holdThenRelease(key, "run-a", '"etag-1"');
    const late = granted(await stub(key).acquire({ key, holder: "run-late", ttlMs: TTL_MS }));
    await expireLeaseNow(key);
    const out = granted(
      await stub(key).release({ key, holder: "run-late", token: late.token, receiptEtag: '"etag-2"' }),
    );
    expect(out).toMatchObject({ released: true });
    expect(
      granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS })).receiptEtag,
    ).toBeUndefined();
  });

  it("a force-release forgets the etag, and a stale-token release cannot set one", async ({ expect }) => {
    const key = freshScopeKey();
    await holdThenRelease(key, "run-a", '"etag-1"');
    const held = granted(await stub(key).acquire({ key, holder: "run-stuck", ttlMs: TTL_MS }));
    granted(await stub(key).forceRelease({ key, reason: "stuck", actor: "admin" }));
    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(b.receiptEtag).toBeUndefined();
    const stale = granted(
      await stub(key).release({ key, holder: "run-stuck", token: held.token, receiptEtag: '"etag-stale"' }),
    );
    expect(stale).toMatchObject({ released: false, reason: "stale-token" });
    granted(await stub(key).release({ key, holder: "run-b", token: b.token }));
    expect(
      granted(await stub(key).acquire({ key, holder: "run-c", ttlMs: TTL_MS })).receiptEtag,
    ).toBeUndefined();
  });

  it("an etag that is not a short string is not kept", async ({ expect }) => {
    const key = freshScopeKey();
    await holdThenRelease(key, "run-a", "x".repeat(1_000));
    expect(
      granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS })).receiptEtag,
    ).toBeUndefined();
  });
});
