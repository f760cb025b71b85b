/**
 * An upgrade pass is budgeted and resumable (workers/upgrade/upgrade-turn.ts; docs/upgrading.md,
 * "The upgrade pass"): it takes at most its budget of scopes, receipts first, says how many it left
 * and whether anything is left at all (`done`), and the next pass starts after the last key it
 * took, so a scope left busy is never in front of the ones behind it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import { receiptKey } from "../../workers/receipts/layout";
import { runUpgrade } from "../../workers/upgrade/upgrade";
import { turnOf, UPGRADE_RESUME_KEY } from "../../workers/upgrade/upgrade-turn";
import { freshEnvironment, receiptWith, TEST_REPO } from "../receipts/helpers";
import {
  legacyRows,
  putLegacyIndexEntry,
  putLegacyIntents,
  putLegacyReceipt,
  testUpgradeDeps,
} from "./legacy-state";

describe("one part's turn of the keys", () => {
  it("takes the keys in order up to the budget; the mark is the last taken while any is left", () => {
    expect(turnOf(["c", "a", "b"], null, 2)).toEqual({ take: ["a", "b"], left: 1, mark: "b" });
    expect(turnOf(["a", "b", "c"], null, 3)).toEqual({ take: ["a", "b", "c"], left: 0, mark: null });
  });

  it("starts after the mark and goes round to the keys before it", () => {
    expect(turnOf(["a", "b", "c"], "a", 2)).toEqual({ take: ["b", "c"], left: 1, mark: "c" });
    expect(turnOf(["a", "b", "c"], "c", 1)).toEqual({ take: ["a"], left: 2, mark: "a" });
    // With budget to spare, every key whatever the mark (a stale one names a key gone since).
    expect(turnOf(["a", "c"], "b", 5)).toEqual({ take: ["c", "a"], left: 0, mark: null });
  });

  it("with no budget left takes nothing and keeps the mark", () => {
    expect(turnOf(["a", "b"], "a", 0)).toEqual({ take: [], left: 2, mark: "a" });
  });
});

/** Legacy receipts of `scopes` in a fresh environment, and a pass over them only, of `budget`. */
async function legacyReceipts(scopes: string[], budget: number) {
  const environment = freshEnvironment();
  const from = [];
  for (const scope of scopes) from.push(await putLegacyReceipt(receiptWith(environment, scope, [scope])));
  const deps = testUpgradeDeps(scopes, () => ({ budget }));
  return { environment, from, deps };
}

describe("an upgrade pass within its budget", () => {
  it("moves at most its budget, says how many it left and that it is not done; the next pass finishes", async () => {
    const { from, deps } = await legacyReceipts(["pr-31", "pr-32", "pr-33"], 2);
    const first = await runUpgrade(deps);
    expect(first.receipts.moved.map((m) => m.from)).toEqual(from.slice(0, 2));
    expect(first.receipts.left).toBe(1);
    expect(first.done).toBe(false);
    expect(await env.RECEIPTS.head(from[2] as string)).not.toBeNull();

    const second = await runUpgrade(deps);
    expect(second.receipts.moved.map((m) => m.from)).toEqual([from[2]]);
    expect(second.receipts.left).toBe(0);
    expect(second.done).toBe(true);
    // Done: the mark is gone, and a further pass writes nothing.
    expect(await deps.bucket.head(UPGRADE_RESUME_KEY)).toBeNull();
    expect(await runUpgrade(deps)).toMatchObject({ done: true, receipts: { moved: [], left: 0 } });
  });

  it("a busy scope does not hold up the ones behind it: the next pass starts after it", async () => {
    const { environment, from, deps } = await legacyReceipts(["pr-41", "pr-42"], 1);
    const key = scopeLockKey(TEST_REPO.id, environment, "pr-41");
    const held = await deps.lock(key).acquire({ holder: "run-other", ttlMs: 60_000 });
    if (!held.ok) throw new Error(held.error.message);

    const first = await runUpgrade(deps);
    expect(first.receipts).toMatchObject({ moved: [], busy: [from[0]], left: 1 });
    const second = await runUpgrade(deps);
    expect(second.receipts).toMatchObject({ moved: [{ from: from[1] }], busy: [], left: 1 });
    // Round again to the busy one, still busy: never done while it is left.
    const third = await runUpgrade(deps);
    expect(third).toMatchObject({ done: false, receipts: { busy: [from[0]], left: 0 } });

    await deps.lock(key).release({ holder: "run-other", token: held.value.token });
    const last = await runUpgrade(deps);
    expect(last.receipts.moved).toEqual([
      { from: from[0], to: receiptKey(TEST_REPO.id, environment, "pr-41") },
    ]);
    expect(last.done).toBe(true);
  });

  it("one budget for both parts, receipts first: a lock's drain waits for the next pass", async () => {
    const environment = freshEnvironment();
    await putLegacyReceipt(receiptWith(environment, "pr-51", ["a"]));
    const lock = scopeLockKey(TEST_REPO.id, environment, "pr-52");
    await putLegacyIntents(lock, [
      {
        action: "create",
        line: "callback",
        op: "auth0.callbackUrl",
        connection: "auth0",
        params: {},
        key: "https://pr-52.example.com/cb",
        parent: "auth0:tenant:client:app",
        runId: "run-dead",
        at: 1_000,
      },
    ]);
    await putLegacyIndexEntry(lock);
    const deps = testUpgradeDeps(["pr-51", "pr-52"], () => ({ budget: 1 }));

    const first = await runUpgrade(deps);
    expect(first.receipts.moved).toHaveLength(1);
    expect(first.intents).toMatchObject({ drained: [], left: 1 });
    expect(await legacyRows(lock)).toBe(1);
    const second = await runUpgrade(deps);
    expect(second.intents).toMatchObject({ drained: [{ lock, merged: 1, dropped: 1 }], left: 0 });
    expect(second.done).toBe(true);
  });
});
