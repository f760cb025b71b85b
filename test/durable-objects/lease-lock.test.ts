import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expireLeaseNow, freshScopeKey, rawStub, stub } from "../helpers/locks";

const TTL = 30_000;

describe("lease object", () => {
  it("grants a free lock with token 1 and refuses a second holder with LOCK_HELD naming the first", async () => {
    const key = freshScopeKey();
    const first = await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL });
    expect(first).toMatchObject({ ok: true, value: { holder: "run-a", token: 1 } });
    const second = await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL });
    expect(second.ok).toBe(false);
    if (second.ok) return;
    expect(second.error.code).toBe("LOCK_HELD");
    expect(second.error.message).toContain("run-a");
    expect(second.error.detail).toMatchObject({ holder: "run-a" });
  });

  it("expires by alarm", async () => {
    const key = freshScopeKey();
    await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL });
    await expireLeaseNow(key);
    expect(await runDurableObjectAlarm(rawStub(key))).toBe(true);
    const state = await stub(key).read({ key });
    expect(state.held).toBe(false);
    expect(state.history.map((h) => h.transition)).toEqual(["acquired", "expired"]);
    void env;
  });
});
