/**
 * `POST /v1/admin/upgrade` (workers/upgrade/upgrade-route.ts; docs/upgrading.md): an admin runs the
 * upgrade pass now instead of waiting for the sweep's. It answers what it did, logs it with the
 * admin's actor, and a second call finds nothing left; any other role is refused before anything
 * moves.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import type { Intent } from "../../shared/schemas/receipt";
import { receiptKey } from "../../workers/receipts/layout";
import type { UpgradeReport } from "../../workers/upgrade/upgrade-report";
import { call, testApp } from "../helpers/app";
import { bearer } from "../helpers/tokens";
import { freshEnvironment, receiptWith, store, TEST_REPO } from "../receipts/helpers";
import {
  legacyRows,
  onlyKeysOf,
  putLegacyIndexEntry,
  putLegacyIntents,
  putLegacyReceipt,
} from "./legacy-state";

const app = testApp();

function intent(scope: string): Intent {
  return {
    action: "create",
    line: "callback",
    op: "auth0.callbackUrl",
    connection: "auth0",
    params: {},
    key: `https://${scope}.example.com/cb`,
    parent: "auth0:tenant:client:app",
    runId: "run-dead",
    at: 1_000,
  };
}

/** A scope of each kind the upgrade moves, in a fresh environment; the pass sees only these two. */
async function legacyWorld() {
  const environment = freshEnvironment();
  const from = await putLegacyReceipt(receiptWith(environment, "pr-1", ["a"]));
  const lock = scopeLockKey(TEST_REPO.id, environment, "pr-2");
  await putLegacyIntents(lock, [intent("pr-2")]);
  await putLegacyIndexEntry(lock);
  const bindings = { ...env, RECEIPTS: onlyKeysOf(env.RECEIPTS, ["pr-1", "pr-2"]) } as typeof env;
  return { environment, from, lock, bindings };
}

const upgrade = (bindings: typeof env, headers: Record<string, string> = {}) =>
  call(app, "POST", "/v1/admin/upgrade", undefined, headers, bindings);

describe("POST /v1/admin/upgrade", () => {
  it("an admin's call moves what is left, answers and logs what it did; a second call finds nothing", async () => {
    const { environment, from, lock, bindings } = await legacyWorld();
    const logged = vi.spyOn(console, "log");
    const res = await upgrade(bindings);
    expect(res.status).toBe(200);
    const report = (await res.json()) as UpgradeReport;
    expect(report.receipts.moved).toEqual([{ from, to: receiptKey(TEST_REPO.id, environment, "pr-1") }]);
    expect(report.intents.drained).toEqual([{ lock, merged: 1, dropped: 1 }]);
    const line = logged.mock.calls.map(([m]) => String(m)).find((m) => m.includes('"event":"upgrade"'));
    logged.mockRestore();
    expect(JSON.parse(line ?? "{}")).toMatchObject({ event: "upgrade", actor: "test-admin", report });
    expect(await legacyRows(lock)).toBe(0);
    const drained = await store().read({ repository: TEST_REPO, environment, scope: "pr-2" });
    expect(drained.receipt.intents.map((i) => i.key)).toEqual(["https://pr-2.example.com/cb"]);

    const again = (await (await upgrade(bindings)).json()) as UpgradeReport;
    expect(again.receipts.moved).toEqual([]);
    expect(again.intents.drained).toEqual([]);
  });

  it.each(["viewer", "ci"] as const)("as %s is refused 403 role.admin, and nothing moves", async (role) => {
    const { from, lock, bindings } = await legacyWorld();
    const res = await upgrade(bindings, await bearer(role, role === "ci" ? ["*/*"] : undefined));
    expect(res.status).toBe(403);
    expect(((await res.json()) as { rule: string }).rule).toBe("role.admin");
    expect(await env.RECEIPTS.head(from)).not.toBeNull();
    expect(await legacyRows(lock)).toBe(1);
  });
});
