/**
 * Upgrading from the version that kept a group's intents in the scope lock (issue 29 item 3;
 * docs/design.md, "Intent recovery": upgrading). That version's run that crashed after its write
 * left its intents in the lock only (its first group's `putIntents`; no receipt put), and the lock,
 * once free, named the scope in the R2 pending-intents index. The state is built straight in
 * storage and R2 as that version left it (test/helpers/legacy-intents.ts); this version's next run
 * or its sweep recovers it with nothing lost and nothing leaked, and the lock keeps nothing after.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import { pendingIntentsIndexKey } from "../../shared/lock-index";
import { scopeLockKey } from "../../shared/lock-keys";
import type { Intent } from "../../shared/schemas/receipt";
import { SimulatedCrash } from "../../workers/engine/deps";
import { overriding } from "../../workers/locks/lock-target";
import { receiptKey } from "../../workers/receipts/layout";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { engineSweepParts } from "../../workers/wiring/background";
import { testEnv } from "../helpers/connections";
import { receipt } from "../helpers/engine";
import { legacyRows, putLegacyIntents } from "../helpers/legacy-intents";
import { expireLeaseNow, stub } from "../helpers/locks";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { entriesOf, expectSettled, freshWorld, providerItems, reliabilityEngine } from "./harness";

/**
 * A first apply of `scope` that crashed right after its provider write, as the version before
 * issue 29 left it: the write landed (claimed at the parent lock), the intents are in the scope
 * lock only, no receipt exists, and the crashed holder's lease has run out.
 */
async function crashedOnOldVersion(
  scope: string,
  plan: Parameters<ReturnType<typeof reliabilityEngine>["apply"]>[0]["plan"],
) {
  const address = { repository: DEFAULT_REPOSITORY, environment: "preview", scope };
  const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
  const crashing = reliabilityEngine({
    faults: (point) => {
      if (point === "after-write") throw new SimulatedCrash(point);
    },
  });
  await crashing.apply({ ...address, plan }).catch((err) => {
    if (!(err instanceof SimulatedCrash)) throw err;
  });
  // This version saved the intents in the receipt; the old one put them in the lock instead.
  const intents: Intent[] = (await receipt("preview", scope)).intents;
  await env.RECEIPTS.delete(receiptKey(DEFAULT_REPOSITORY.id, "preview", scope));
  await putLegacyIntents(key, intents);
  await expireLeaseNow(key);
  return { address, key, intents };
}

describe("reliability: upgrading, a crashed run's intents kept in the scope lock", () => {
  it("the next apply recovers them from the grant: entries kept once, the lock keeps nothing", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const { address, key, intents } = await crashedOnOldVersion(scope, plan);
    expect(intents).toHaveLength(3);
    expect((await receipt("preview", scope)).intents).toEqual([]);
    expect((await providerItems(domain)).filter((i) => i.includes(scope))).toEqual(entriesOf(scope));

    const next = await reliabilityEngine().apply({ ...address, plan });
    expect(next.run.status).toBe("succeeded");
    expect(next.warnings.join(" ")).toContain("recovered 3 intent");
    expect((await providerItems(domain)).filter((i) => i.includes(scope))).toEqual(entriesOf(scope));
    expect((await receipt("preview", scope)).ledger).toHaveLength(3);
    expect(await legacyRows(key)).toBe(0);
    await expectSettled(expect, domain, [scope]);
  });

  it("no run comes: the sweep finds the scope through the old index and undoes the crashed creates", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const { key } = await crashedOnOldVersion(scope, plan);
    // The old version's lock, free and keeping intents, named the scope in R2.
    await env.RECEIPTS.put(pendingIntentsIndexKey(key), JSON.stringify({ key }));
    expect((await receipt("preview", scope)).intents).toEqual([]);

    const now = Date.now() + 60_000;
    const report = await engineSweepParts(emulatorTransport).resolveStaleIntents(testEnv(env), {
      olderThan: now,
      now,
    });
    expect(report.resolved).toBeGreaterThanOrEqual(3);
    // A crashed run never recorded success: its creates are undone, nothing is left orphaned.
    expect((await providerItems(domain)).filter((i) => i.includes(scope))).toEqual([]);
    expect(await legacyRows(key)).toBe(0);
    await stub(key).read({ key }); // settles the object's background index writes
    expect(await env.RECEIPTS.head(pendingIntentsIndexKey(key))).toBeNull();
    await expectSettled(expect, domain, [scope]);
  });

  it("rows a receipt of the old version already accounts for (intentsThrough) are not resolved again", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const address = { repository: DEFAULT_REPOSITORY, environment: "preview", scope };
    const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
    // A run whose final save recorded its entries, then died before the release that would have
    // let the old lock drop its copies: the rows stay, numbered up to what the receipt says.
    const done = await reliabilityEngine().apply({ ...address, plan });
    expect(done.run.status).toBe("succeeded");
    const store = new R2ReceiptStore(env.RECEIPTS);
    const { receipt: saved, etag } = await store.read(address);
    const copies: Intent[] = saved.ledger.map((e) => ({
      action: "remove",
      line: e.line,
      op: e.op,
      connection: e.connection,
      params: e.params,
      key: e.key,
      parent: e.parent,
      runId: done.run.id,
      at: Date.now() - 60_000,
      claims: true,
    }));
    const seq = await putLegacyIntents(key, copies);
    await store.write({ ...saved, revision: saved.revision + 1, intentsThrough: seq }, etag);

    const next = await reliabilityEngine().apply({ ...address, plan });
    expect(next.run.status).toBe("succeeded");
    expect(next.warnings.join(" ")).not.toContain("recovered");
    expect((await providerItems(domain)).filter((i) => i.includes(scope))).toEqual(entriesOf(scope));
    expect(await legacyRows(key)).toBe(0);
    await expectSettled(expect, domain, [scope]);
  });

  it("rows naming a connection the next run did not prepare: it gives the lease back, prepares it, asks again", async ({
    expect,
  }) => {
    const old = await freshWorld();
    const { scope } = old;
    const { address, key } = await crashedOnOldVersion(scope, old.plan);
    // The next apply's plan is on another tenant: nothing before the lease names the old one.
    const other = await freshWorld();
    let scopeAcquires = 0;
    const counting = reliabilityEngine({
      wrapLocks: (inner) => ({
        ...inner,
        scope: (...args) =>
          overriding(inner.scope(...args), {
            acquire: (req) => {
              scopeAcquires += 1;
              return inner.scope(...args).acquire(req);
            },
          }),
      }),
    });
    const next = await counting.apply({ ...address, plan: other.plan });
    expect(next.run.status).toBe("succeeded");
    expect(scopeAcquires).toBe(2);
    expect(next.warnings.join(" ")).toContain("recovered 3 intent");
    // The crashed creates on the old tenant are undone; the new plan's entries are there.
    expect((await providerItems(old.domain)).filter((i) => i.includes(scope))).toEqual([]);
    expect((await providerItems(other.domain)).filter((i) => i.includes(scope))).toEqual(entriesOf(scope));
    expect(await legacyRows(key)).toBe(0);
    await expectSettled(expect, other.domain, [scope]);
  });
});
