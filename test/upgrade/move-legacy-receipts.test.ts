/**
 * Receipts written before 0.2.0 live at receipts/<environment>/<scope>.json (docs/upgrading.md,
 * "Scopes per repository"). Runs never read that layout; the upgrade pass moves each receipt to its
 * repository's key under the scope's lease, exactly as a run's read-and-migrate did before 0.3.0:
 * only with exactly one repository configured; a receipt already at the new key is the scope's and
 * the old key is left, reported. With several repositories, nothing is guessed.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import { receiptKey } from "../../workers/receipts/layout";
import { runUpgrade } from "../../workers/upgrade/upgrade";
import { at, freshEnvironment, receiptWith, store, TEST_REPO } from "../receipts/helpers";
import { putLegacyReceipt, testUpgradeDeps } from "./legacy-state";

const OTHER_REPO = { id: TEST_REPO.id + 1, name: "other/repo" };

/** A legacy receipt of `scope` in a fresh environment, and a pass that sees only that scope's keys. */
async function legacyWorld(scope: string, keys: string[]) {
  const environment = freshEnvironment();
  const from = await putLegacyReceipt(receiptWith(environment, scope, keys));
  const to = receiptKey(TEST_REPO.id, environment, scope);
  return { environment, from, to };
}

describe("moving receipts written before 0.2.0", () => {
  it("a run's store never reads the old key: the scope has no receipt until the pass moves it", async () => {
    const { environment, from, to } = await legacyWorld("pr-5", ["https://pr-5.example.com/cb"]);
    expect((await store().read(at(environment, "pr-5"))).etag).toBeNull();
    expect(await store().listScopes({ environment })).toEqual([]);

    const report = await runUpgrade(testUpgradeDeps(["pr-5"]));
    expect(report.receipts).toEqual({
      moved: [{ from, to }],
      shadowed: [],
      busy: [],
      failed: [],
      notMoved: [],
      left: 0,
    });
    expect(await env.RECEIPTS.head(from)).toBeNull();
    const { receipt, etag } = await store().read(at(environment, "pr-5"));
    expect(etag).not.toBeNull();
    expect(receipt.repository).toEqual(TEST_REPO);
    expect(receipt.ledger.map((e) => e.key)).toEqual(["https://pr-5.example.com/cb"]);
    expect(await store().listScopes({ environment })).toMatchObject([
      { repositoryId: TEST_REPO.id, environment, scope: "pr-5", entries: 1 },
    ]);
  });

  it("idempotent: a second pass moves nothing and writes nothing", async () => {
    const { environment } = await legacyWorld("pr-6", ["a"]);
    await runUpgrade(testUpgradeDeps(["pr-6"]));
    const before = await store().read(at(environment, "pr-6"));
    const again = await runUpgrade(testUpgradeDeps(["pr-6"]));
    expect(again.receipts).toEqual({ moved: [], shadowed: [], busy: [], failed: [], notMoved: [], left: 0 });
    expect((await store().read(at(environment, "pr-6"))).etag).toBe(before.etag);
  });

  it("a receipt already at the new key (a delete that failed after the move) is the scope's: the old key is left, reported", async () => {
    const { environment, from, to } = await legacyWorld("pr-7", ["stale"]);
    const current = receiptWith(environment, "pr-7", ["a", "b"]);
    const etag = await store().write(current, null);
    const report = await runUpgrade(testUpgradeDeps(["pr-7"]));
    expect(report.receipts.shadowed).toEqual([{ key: from, receipt: to }]);
    expect(report.receipts.moved).toEqual([]);
    expect(await env.RECEIPTS.head(from)).not.toBeNull();
    expect((await store().read(at(environment, "pr-7"))).etag).toBe(etag);
  });

  it("a tombstone at the old key (a scope destroyed before its receipt moved) has nothing to move", async () => {
    const { environment, from } = await legacyWorld("pr-8", []);
    // 0.1.x's destroy of a scope it read at the old key put a tombstone there.
    await env.RECEIPTS.put(from, JSON.stringify({ tombstone: true, environment, scope: "pr-8" }), {
      customMetadata: { kind: "tombstone", removedAt: "1" },
    });
    const report = await runUpgrade(testUpgradeDeps(["pr-8"]));
    expect(report.receipts).toEqual({ moved: [], shadowed: [], busy: [], failed: [], notMoved: [], left: 0 });
    expect((await store().read(at(environment, "pr-8"))).etag).toBeNull();
  });

  it("a scope whose lease a run holds is skipped, busy, and moved by a later pass", async () => {
    const { environment, from, to } = await legacyWorld("pr-9", ["a"]);
    const key = scopeLockKey(TEST_REPO.id, environment, "pr-9");
    const deps = testUpgradeDeps(["pr-9"]);
    const held = await deps.lock(key).acquire({ holder: "run-other", ttlMs: 60_000 });
    if (!held.ok) throw new Error(held.error.message);
    expect((await runUpgrade(deps)).receipts.busy).toEqual([from]);
    expect(await env.RECEIPTS.head(from)).not.toBeNull();
    await deps.lock(key).release({ holder: "run-other", token: held.value.token });
    expect((await runUpgrade(deps)).receipts.moved).toEqual([{ from, to }]);
  });

  it("a body that is not a receipt of its scope fails, named, and is left as it is", async () => {
    const { from } = await legacyWorld("pr-10", ["a"]);
    await env.RECEIPTS.put(from, "{ not json");
    const report = await runUpgrade(testUpgradeDeps(["pr-10"]));
    expect(report.receipts.failed).toEqual([
      { key: from, code: "INTERNAL", error: `receipt ${from} is not valid JSON` },
    ]);
    expect(await env.RECEIPTS.get(from).then((o) => o?.text())).toBe("{ not json");
  });

  it("with several repositories configured nothing is moved: every old key is reported for an operator", async () => {
    const { from } = await legacyWorld("pr-11", ["a"]);
    const several = testUpgradeDeps(["pr-11"], (deps) => ({
      repositories: [...deps.repositories, { ...OTHER_REPO, defaultBranch: "main" }],
    }));
    const report = await runUpgrade(several);
    expect(report.receipts).toEqual({
      moved: [],
      shadowed: [],
      busy: [],
      failed: [],
      notMoved: [from],
      left: 0,
    });
    expect(await env.RECEIPTS.head(from)).not.toBeNull();
  });
});
