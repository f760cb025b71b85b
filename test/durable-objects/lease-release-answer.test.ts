/**
 * A release answers whether the lease was still live when it arrived (docs/design.md, "Lease
 * protocol"): the holder's release after its write is the parent's check after that write, so
 * "released" must mean the token was current and unexpired, never only that the lock is free now.
 */
import { describe, it } from "vitest";
import { expireLeaseJustNow, freshScopeKey, granted, stub } from "../helpers/locks";

const TTL_MS = 30_000;

describe("what a release answers", () => {
  it("a release in time answers released: the lease was live when it arrived", async ({ expect }) => {
    const key = freshScopeKey("live");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const answer = granted(await stub(key).release({ key, holder: "run-a", token: a.token }));
    expect(answer).toMatchObject({ released: true, reason: "released" });
    // Released in time: no lock-delay, the next run is granted at once.
    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(b.token).toBe(a.token + 1);
  });

  it("a release of a lease that expired (nobody took it yet) frees it but answers released-expired, and the lock-delay follows", async ({
    expect,
  }) => {
    const key = freshScopeKey("expired");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseJustNow(key);
    const answer = granted(await stub(key).release({ key, holder: "run-a", token: a.token }));
    // Freed (nobody else had it), but not live: a write made under it may have overlapped nothing
    // yet may still land, so the holder must treat its outcome as unknown.
    expect(answer).toMatchObject({ released: true, reason: "released-expired" });
    const state = await stub(key).read({ key });
    expect(state.held).toBe(false);
    expect(state.history.map((h) => h.transition)).toEqual(["acquired", "released-expired"]);
    // The lock-delay after the expiry still keeps the next run out.
    const b = await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS });
    expect(b).toMatchObject({ ok: false, error: { code: "LOCK_HELD" } });
    expect(b.ok ? "" : b.error.message).toContain("lock-delay");
  });
});
