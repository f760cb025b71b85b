/**
 * Randomized concurrent histories against the real lock objects (docs/design.md, "Lease protocol"): over a
 * thousand operations across several keys — acquire with and without wait, renew, re-acquire, release,
 * expiry (short TTLs and rewritten lease rows), force-release, alarms — checked for mutual
 * exclusion, FIFO grants to waiters and strictly increasing fencing tokens. The control cases show
 * the checker rejecting histories that break each promise.
 */
import { describe, it } from "vitest";
import { checkLockHistory, fifoPairsChecked, type Recorded } from "../helpers/lock-history";
import { freshScopeKey, stub } from "../helpers/locks";
import { runHistory } from "./lock-history-runner";

const KEYS = 4;
const ACTORS = 6;
const STEPS_PER_ACTOR = 60;
const SEED = 0x10c_4157;

describe("lock histories", () => {
  it(`${KEYS} keys × ${ACTORS} concurrent actors: mutual exclusion, FIFO and increasing tokens hold`, {
    timeout: 30_000,
  }, async ({ expect }) => {
    const keys = Array.from({ length: KEYS }, () => freshScopeKey("history"));
    const histories = await Promise.all(
      keys.map((key, i) =>
        runHistory({ key, seed: SEED + i, actors: ACTORS, stepsPerActor: STEPS_PER_ACTOR }),
      ),
    );
    const all = histories.flat();
    const count = (t: Recorded["type"]) => all.filter((e) => e.type === t).length;
    console.info(
      `lock histories: ${all.length} operations — grants ${count("grant")}, refused ${count("refused")}, ` +
        `renewals ${count("renew")} (lost ${count("renew-lost")}), releases ${count("release")}, ` +
        `force ${count("force")}, expiries ${count("expire")}, snapshots ${count("snapshot")}, ` +
        `combining reports ${count("combine")}, waiters answered combined ${count("combined")}`,
    );
    // At least a thousand operations by the actors, not counting the observer's snapshots.
    expect(all.length - count("snapshot")).toBeGreaterThanOrEqual(1_000);
    const fifoPairs = histories.reduce((sum, h) => sum + fifoPairsChecked(h), 0);
    console.info(`lock histories: ${fifoPairs} queue orders between granted waiters checked`);
    expect(fifoPairs).toBeGreaterThan(0);
    // The mix really exercised every path.
    for (const t of [
      "grant",
      "refused",
      "renew",
      "renew-lost",
      "release",
      "force",
      "expire",
      "combine",
      "combined",
    ] as const) {
      expect(count(t), t).toBeGreaterThan(0);
    }
    const queuedSeen = all.some((e) => e.type === "snapshot" && e.waiters.length > 1);
    expect(queuedSeen).toBe(true);
    histories.forEach((h, i) => {
      const found = checkLockHistory(h);
      if (found.length > 0) console.info(JSON.stringify({ found, h }));
      expect(found, keys[i]).toEqual([]);
    });
    for (const key of keys) {
      const state = await stub(key).read({ key });
      expect(state.waiters).toEqual([]);
      const grants = histories[keys.indexOf(key)]?.filter((e) => e.type === "grant").length;
      expect(state.lastToken).toBe(grants);
    }
  });
});

let n = 0;
const at = <T extends object>(e: T): T & { inv: number; res: number } => ({ ...e, inv: ++n, res: ++n });

describe("lock history checker: control cases", () => {
  it("rejects a grant made while the previous lease was still valid", ({ expect }) => {
    const history: Recorded[] = [
      at({ type: "grant", holder: "a", token: 1, at: 100, expiresAt: 1_000, waited: false }),
      at({ type: "grant", holder: "b", token: 2, at: 500, expiresAt: 1_500, waited: false }),
      at({ type: "release", holder: "a", token: 1, released: true, at: 600 }),
    ];
    expect(checkLockHistory(history).join("\n")).toMatch(/granted at 500 while token 1 was valid/);
  });

  it("rejects a token granted twice or out of order", ({ expect }) => {
    const history: Recorded[] = [
      at({ type: "grant", holder: "a", token: 2, at: 100, expiresAt: 150, waited: false }),
      at({ type: "grant", holder: "b", token: 1, at: 200, expiresAt: 300, waited: false }),
    ];
    const v = checkLockHistory(history).join("\n");
    expect(v).toMatch(/tokens are not 1..n|granted after token/);
  });

  it("rejects a waiter granted ahead of one queued before it, and a newcomer granted past the queue", ({
    expect,
  }) => {
    const history: Recorded[] = [
      at({ type: "grant", holder: "a", token: 1, at: 100, expiresAt: 1_000, waited: false }),
      at({
        type: "snapshot",
        waiters: [
          { holder: "w1", since: 110 },
          { holder: "w2", since: 120 },
        ],
      }),
      at({ type: "release", holder: "a", token: 1, released: true, at: 200 }),
      at({ type: "grant", holder: "w2", token: 2, at: 200, expiresAt: 1_000, waited: true }),
      at({ type: "release", holder: "w2", token: 2, released: true, at: 300 }),
      at({ type: "grant", holder: "c", token: 3, at: 300, expiresAt: 1_000, waited: false }),
      at({ type: "release", holder: "c", token: 3, released: true, at: 400 }),
      at({ type: "grant", holder: "w1", token: 4, at: 400, expiresAt: 1_000, waited: true }),
    ];
    const v = checkLockHistory(history).join("\n");
    expect(v).toMatch(/w2 was queued behind w1 but granted first/);
    expect(v).toMatch(/c \(token 3\) was granted while w1 waited ahead of it/);
  });

  it("rejects a combined answer nobody reported, a report after the next grant, and a combined waiter granted", ({
    expect,
  }) => {
    const history: Recorded[] = [
      at({ type: "grant", holder: "a", token: 1, at: 100, expiresAt: 200, waited: false }),
      at({ type: "combined", holder: "w", by: "a", token: 1 }),
      at({ type: "grant", holder: "b", token: 2, at: 250, expiresAt: 900, waited: false }),
      at({ type: "combine", holder: "a", token: 1, ok: true, reported: ["x"] }),
      at({ type: "combined", holder: "x", by: "b", token: 1 }),
      at({ type: "release", holder: "b", token: 2, released: true, at: 300 }),
      at({ type: "grant", holder: "x", token: 3, at: 300, expiresAt: 900, waited: true }),
    ];
    const v = checkLockHistory(history).join("\n");
    expect(v).toMatch(/w told its change was written under token 1 with no such report/);
    expect(v).toMatch(/combine of token 1 succeeded after token 2 was granted/);
    expect(v).toMatch(/x told token 1 of b wrote for it, never granted to b/);
    expect(v).toMatch(/x was granted after its change was written/);
  });

  it("rejects a renewal of a lease after the next one was granted", ({ expect }) => {
    const history: Recorded[] = [
      at({ type: "grant", holder: "a", token: 1, at: 100, expiresAt: 200, waited: false }),
      at({ type: "grant", holder: "b", token: 2, at: 250, expiresAt: 900, waited: false }),
      at({ type: "renew", holder: "a", token: 1, expiresAt: 300 }),
    ];
    expect(checkLockHistory(history).join("\n")).toMatch(/renew of token 1 succeeded after token 2/);
  });
});
