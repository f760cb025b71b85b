/**
 * A scope as 0.1.x left it in both retired layouts at once (docs/upgrading.md, "The upgrade pass"):
 * its receipt at the key from before repositories, holding what a first run applied, and its scope
 * lock keeping the intents of a second run that crashed after its provider write. One upgrade pass
 * moves both; from then on an apply and a destroy answer exactly what they answer for a twin scope
 * whose same history was written by this version (receipt at its repository's key, intents in it):
 * no entry lost, the crashed run's write recovered once, nothing left behind.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { receiptKey } from "../../workers/receipts/layout";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { runUpgrade } from "../../workers/upgrade/upgrade";
import { freshPr } from "../helpers/engine";
import { expireLeaseNow } from "../helpers/locks";
import { auth0Plan, previewPlan } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import {
  entriesOf,
  expectSettled,
  freshWorld,
  providerItems,
  reliabilityEngine,
} from "../reliability/harness";
import {
  legacyIndexed,
  legacyRows,
  putLegacyIndexEntry,
  putLegacyIntents,
  putLegacyReceipt,
  testUpgradeDeps,
} from "./legacy-state";

const addressOf = (scope: string) => ({ repository: DEFAULT_REPOSITORY, environment: "preview", scope });
const lockOf = (scope: string) => scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);

/**
 * The history both scopes share: an apply of two of the plan's lines, then an apply of all three
 * that crashed right after its provider write (the third entry exists, no run recorded it).
 */
async function history(domain: string, scope: string): Promise<void> {
  const full = previewPlan(domain);
  const first = auth0Plan(domain, [
    { id: "callback", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
    { id: "logout", op: "auth0.logoutUrl", url: "https://{scope}.preview.example.com/" },
  ]);
  const applied = await reliabilityEngine().apply({ ...addressOf(scope), plan: first });
  if (applied.run.status !== "succeeded") throw new Error(`first apply ${applied.run.status}`);
  const crashing = reliabilityEngine({
    faults: (point) => {
      if (point === "after-write") throw new SimulatedCrash(point);
    },
  });
  await crashing.apply({ ...addressOf(scope), plan: full }).catch((err) => {
    if (!(err instanceof SimulatedCrash)) throw err;
  });
  await expireLeaseNow(lockOf(scope));
}

/** The same state as 0.1.x kept it: the receipt at its old key without the intents, which its lock keeps. */
async function as01(scope: string): Promise<number> {
  const store = new R2ReceiptStore(env.RECEIPTS);
  const { receipt } = await store.read(addressOf(scope));
  await putLegacyReceipt({ ...receipt, intents: [] });
  await env.RECEIPTS.delete(receiptKey(DEFAULT_REPOSITORY.id, "preview", scope));
  await putLegacyIntents(lockOf(scope), receipt.intents);
  await putLegacyIndexEntry(lockOf(scope));
  return receipt.intents.length;
}

describe("upgrading a scope 0.1.x left in both retired layouts", () => {
  it("one pass moves both; the next apply and destroy answer as for a twin never in them", async ({
    expect,
  }) => {
    const { domain, scope: old, plan } = await freshWorld();
    const twin = freshPr();
    await history(domain, old);
    await history(domain, twin);
    const intents = await as01(old);
    expect(intents).toBeGreaterThan(0);

    // Before the pass a run of the old scope touches nothing: refused, retriable.
    await expect(reliabilityEngine().apply({ ...addressOf(old), plan })).rejects.toMatchObject({
      code: "CONCURRENT_MODIFICATION",
    });

    const report = await runUpgrade(testUpgradeDeps([old]));
    expect(report.receipts.moved).toHaveLength(1);
    expect(report.intents.drained).toEqual([{ lock: lockOf(old), merged: intents, dropped: intents }]);
    expect(report.done).toBe(true);
    expect(await legacyRows(lockOf(old))).toBe(0);
    expect(await legacyIndexed(lockOf(old))).toBe(false);

    const applied = [];
    for (const scope of [old, twin]) {
      const result = await reliabilityEngine().apply({ ...addressOf(scope), plan });
      expect(result.run.status).toBe("succeeded");
      applied.push({
        lines: result.lines.map((l) => [l.id, l.result]),
        recovered: result.warnings.filter((w) => w.includes("recovered")).length,
      });
      const mine = (await providerItems(domain)).filter((i) => i.includes(scope)).sort();
      expect(mine).toEqual(entriesOf(scope).sort());
    }
    expect(applied[0]).toEqual(applied[1]);
    expect(applied[0]?.recovered).toBeGreaterThan(0);
    await expectSettled(expect, domain, [old, twin]);

    const destroyed = [];
    for (const scope of [old, twin]) {
      const result = await reliabilityEngine().destroy(addressOf(scope));
      expect(result.run.status).toBe("succeeded");
      destroyed.push(result.lines.map((l) => [l.id, l.result]));
      expect((await providerItems(domain)).filter((i) => i.includes(scope))).toEqual([]);
    }
    expect(destroyed[0]).toEqual(destroyed[1]);
    await expectSettled(expect, domain, [old, twin]);
  });
});
