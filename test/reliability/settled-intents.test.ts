/**
 * Intents are resolved once (docs/design.md, "Intent recovery"). Found when intents lived in the
 * scope lock (issue 24; upgrading from that version still meets such locks): a holder whose
 * final save holds them may die before the release that lets the lock drop them, and the next
 * holder must not resolve them a second time against the newer ledger that save recorded (found by
 * the review of issue 24: the retry's own remove intents, still in the lock, removed the entries
 * its save had recorded as the scope's).
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import { ok } from "../../shared/errors";
import { pendingIntentsIndexKey } from "../../shared/lock-index";
import { scopeLockKey } from "../../shared/lock-keys";
import { SimulatedCrash } from "../../workers/engine/deps";
import { overriding } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { engineSweepParts } from "../../workers/wiring/background";
import { testEnv } from "../helpers/connections";
import { durableIntents, receipt } from "../helpers/engine";
import { putLegacyIntents } from "../helpers/legacy-intents";
import { expireLeaseNow, stub } from "../helpers/locks";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { entriesOf, expectSettled, freshWorld, providerItems, reliabilityEngine } from "./harness";

/** An engine whose scope-lock releases never reach the lock (as if its isolate died right after its save). */
function engineWhoseReleasesAreLost() {
  return reliabilityEngine({
    wrapLocks: (inner) => ({
      ...inner,
      scope: (...args) =>
        overriding(inner.scope(...args), {
          release: async () => ok({ released: true, reason: "released", at: Date.now() }),
        }),
    }),
  });
}

describe("reliability: intents the scope lock kept after the save that settled them", () => {
  it("a retry saves, then dies before its release: the next recovery keeps every entry it recorded", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const address = { repository: DEFAULT_REPOSITORY, environment: "preview", scope };
    const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
    // Run 1 dies right after its write: its intents are durable in the receipt.
    const crashed = reliabilityEngine({
      faults: (point) => {
        if (point === "after-write") throw new SimulatedCrash(point);
      },
    });
    await crashed.apply({ ...address, plan }).catch((err) => {
      if (!(err instanceof SimulatedCrash)) throw err;
    });
    await expireLeaseNow(key);

    // Run 2 recovers them, applies the plan again and saves; its release never reaches the lock
    // (the isolate died). Its save holds everything: the next recovery must undo nothing of it.
    const retry = engineWhoseReleasesAreLost();
    const second = await retry.apply({ ...address, plan });
    expect(second.run.status).toBe("succeeded");
    await expireLeaseNow(key);

    const recovered = await reliabilityEngine().recover(address);
    expect(recovered.run.status).toBe("succeeded");
    const mine = (await providerItems(domain)).filter((i) => i.includes(scope)).sort();
    expect(mine).toEqual(entriesOf(scope));
    expect((await receipt("preview", scope)).ledger.map((e) => e.key).sort()).toEqual(
      entriesOf(scope)
        .map((e) => e.split(" ")[1])
        .sort(),
    );
    expect(await durableIntents("preview", scope)).toEqual([]);
    await expectSettled(expect, domain, [scope]);
  });
});

describe("reliability: the sweep and a lock keeping only intents its receipt settled", () => {
  it("upgrading: a run of the old version saved, then died before its release: the sweep's recovery clears the lock and its index entry", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const address = { repository: DEFAULT_REPOSITORY, environment: "preview", scope };
    const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
    const noRelease = engineWhoseReleasesAreLost();
    expect((await noRelease.apply({ ...address, plan })).run.status).toBe("succeeded");
    // As the version before issue 29 left it (test/helpers/legacy-intents.ts): the run's intents
    // still in the lock, numbered up to what its receipt's save accounts for (`intentsThrough`).
    const store = new R2ReceiptStore(env.RECEIPTS);
    const { receipt: saved, etag } = await store.read(address);
    const seq = await putLegacyIntents(
      key,
      saved.ledger.map((e) => ({
        action: "create" as const,
        line: e.line,
        op: e.op,
        connection: e.connection,
        params: e.params,
        key: e.key,
        parent: e.parent,
        runId: e.runId,
        at: e.createdAt,
        claims: true as const,
      })),
    );
    await store.write({ ...saved, revision: saved.revision + 1, intentsThrough: seq }, etag);
    await expireLeaseNow(key);
    // The lock keeps the run's intents (settled by its save) and, once free, names the scope.
    expect(await stub(key).pendingIntents({ key })).not.toEqual([]);
    await stub(key).read({ key });
    expect(await env.RECEIPTS.head(pendingIntentsIndexKey(key))).not.toBeNull();
    // Nothing is left to resolve, yet the sweep recovers the scope: its settled release clears them.
    const now = Date.now() + 60_000;
    const report = await engineSweepParts(emulatorTransport).resolveStaleIntents(testEnv(env), {
      olderThan: now,
      now,
    });
    expect(report.resolved).toBe(0);
    expect(await stub(key).pendingIntents({ key })).toEqual([]);
    await stub(key).read({ key });
    expect(await env.RECEIPTS.head(pendingIntentsIndexKey(key))).toBeNull();
    // And nothing the run recorded was undone.
    expect((await providerItems(domain)).filter((i) => i.includes(scope)).sort()).toEqual(entriesOf(scope));
    await expectSettled(expect, domain, [scope]);
  });
});
