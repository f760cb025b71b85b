/**
 * The lock object's memory of recent writes (docs/design.md, "Providers that forget a write"):
 * only the current holder may read or add to it, a later write of an item replaces the earlier one,
 * a write past its `until` is forgotten, and a malformed report is refused with nothing stored.
 */
import { describe, it } from "vitest";
import type { RecentWrite } from "../../shared/schemas/recent-writes";
import { freshScopeKey, granted, refused, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const write = (key: string, action: "add" | "remove", at: number, until: number): RecentWrite => ({
  op: "entra.redirectUri",
  key,
  params: { application: "a", kind: "web", url: key },
  action,
  at,
  until,
});

describe("recent writes on a lock object", () => {
  it("the holder remembers writes; the latest write of an item replaces the earlier; expired ones are gone", async ({
    expect,
  }) => {
    const key = freshScopeKey("recent");
    const lock = stub(key);
    const lease = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const fenced = { key, holder: "run-a", token: lease.token };
    const now = Date.now();
    granted(
      await lock.rememberWrites({
        ...fenced,
        writes: [
          write("https://x/", "add", now, now + 60_000),
          write("https://old/", "add", now - 10, now - 1),
        ],
      }),
    );
    granted(
      await lock.rememberWrites({
        ...fenced,
        writes: [write("https://x/", "remove", now + 1, now + 60_000)],
      }),
    );
    const remembered = granted(await lock.recentWrites(fenced));
    expect(remembered.map((w) => [w.key, w.action])).toEqual([["https://x/", "remove"]]);
    expect(remembered[0]?.params).toEqual({ application: "a", kind: "web", url: "https://x/" });
  });

  it("anyone but the current holder is refused LOCK_LOST, and nothing they sent is kept", async ({
    expect,
  }) => {
    const key = freshScopeKey("recent-fence");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await lock.release({ key, holder: "run-a", token: a.token });
    const b = granted(await lock.acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    const now = Date.now();
    const late = await lock.rememberWrites({
      key,
      holder: "run-a",
      token: a.token,
      writes: [write("https://x/", "add", now, now + 60_000)],
    });
    expect(refused(late).code).toBe("LOCK_LOST");
    expect(refused(await lock.recentWrites({ key, holder: "run-a", token: a.token })).code).toBe("LOCK_LOST");
    expect(granted(await lock.recentWrites({ key, holder: "run-b", token: b.token }))).toEqual([]);
  });

  it("a malformed report is refused VALIDATION with nothing stored", async ({ expect }) => {
    const key = freshScopeKey("recent-bad");
    const lock = stub(key);
    const lease = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const fenced = { key, holder: "run-a", token: lease.token };
    const bad = { ...write("https://x/", "add", 1, 2), action: "upsert" } as unknown as RecentWrite;
    expect(refused(await lock.rememberWrites({ ...fenced, writes: [bad] })).code).toBe("VALIDATION");
    expect(granted(await lock.recentWrites(fenced))).toEqual([]);
  });
});
