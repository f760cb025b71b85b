/**
 * Upgrading from 0.1.x, whose scope lock kept a group's intents (docs/upgrading.md, "Intents kept by
 * scope locks of 0.1.x"). A run of 0.1.x that crashed after its write left its intents in the lock
 * only (no receipt put). Runs of this version refuse such a lock, retriable, naming the upgrade; the
 * upgrade pass drains the lock into the receipt under the scope lease (read, save, drop), and the
 * next run recovers the intents like any crashed run's: nothing lost, nothing leaked, nothing
 * resolved twice. The state is built as 0.1.x left it (./legacy-state.ts).
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import type { Intent } from "../../shared/schemas/receipt";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { receiptKey } from "../../workers/receipts/layout";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { runUpgrade } from "../../workers/upgrade/upgrade";
import { receipt } from "../helpers/engine";
import { overriding } from "../helpers/lock-overrides";
import { expireLeaseNow, stub } from "../helpers/locks";
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
  testUpgradeDeps,
} from "./legacy-state";

type Plan = Parameters<ReturnType<typeof reliabilityEngine>["apply"]>[0]["plan"];

/**
 * A first apply of `scope` that crashed right after its provider write, as 0.1.x left it: the write
 * landed (claimed at the parent lock), the intents are in the scope lock only, no receipt exists,
 * the crashed holder's lease has run out, and the lock, once free, named the scope in R2.
 */
async function crashedOn01(scope: string, plan: Plan) {
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
  // This version saved the intents in the receipt; 0.1.x put them in the lock instead.
  const intents: Intent[] = (await receipt("preview", scope)).intents;
  await env.RECEIPTS.delete(receiptKey(DEFAULT_REPOSITORY.id, "preview", scope));
  await putLegacyIntents(key, intents);
  await putLegacyIndexEntry(key);
  await expireLeaseNow(key);
  return { address, key, intents };
}

const mine = async (domain: string, scope: string) =>
  (await providerItems(domain)).filter((i) => i.includes(scope)).sort();

describe("upgrading: intents a scope lock of 0.1.x kept", () => {
  it("a run is refused, retriable, naming the upgrade; after the pass the retry recovers them once", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const { address, key, intents } = await crashedOn01(scope, plan);
    expect(intents).toHaveLength(3);

    const refused = await reliabilityEngine()
      .apply({ ...address, plan })
      .then(
        () => null,
        (err: unknown) => err as { code?: string; message?: string; detail?: Record<string, unknown> },
      );
    expect(refused?.code).toBe("CONCURRENT_MODIFICATION");
    expect(refused?.message).toContain("POST /v1/admin/upgrade");
    expect(refused?.detail).toMatchObject({ lock: key, upgrade: "legacy-intents" });
    // Refused before anything: no receipt, the lock keeps its rows, the lease is free again.
    expect((await new R2ReceiptStore(env.RECEIPTS).read(address)).etag).toBeNull();
    expect(await legacyRows(key)).toBe(3);
    expect((await stub(key).read({ key })).held).toBe(false);

    const report = await runUpgrade(testUpgradeDeps([scope]));
    expect(report.intents).toEqual({
      drained: [{ lock: key, merged: 3, dropped: 3 }],
      busy: [],
      waiting: [],
      failed: [],
      left: 0,
    });
    expect((await receipt("preview", scope)).intents).toHaveLength(3);
    expect(await legacyRows(key)).toBe(0);
    expect(await legacyIndexed(key)).toBe(false);

    const next = await reliabilityEngine().apply({ ...address, plan });
    expect(next.run.status).toBe("succeeded");
    expect(next.warnings.join(" ")).toContain("recovered 3 intent");
    expect(await mine(domain, scope)).toEqual(entriesOf(scope).sort());
    expect((await receipt("preview", scope)).ledger).toHaveLength(3);
    await expectSettled(expect, domain, [scope]);
    // Idempotent: nothing left to drain.
    expect((await runUpgrade(testUpgradeDeps([scope]))).intents.drained).toEqual([]);
  });

  it("no run comes: the pass drains the lock and the scope's recovery undoes the crashed creates", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const { address } = await crashedOn01(scope, plan);
    await runUpgrade(testUpgradeDeps([scope]));
    const recovered = await reliabilityEngine().recover(address);
    expect(recovered.run.status).toBe("succeeded");
    // A crashed run never recorded success: its creates are undone, nothing is left orphaned.
    expect(await mine(domain, scope)).toEqual([]);
    await expectSettled(expect, domain, [scope]);
  });

  it("rows a receipt of 0.1.x already accounts for (intentsThrough) are dropped, not merged: nothing resolved twice", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const address = { repository: DEFAULT_REPOSITORY, environment: "preview", scope };
    const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
    // A run whose final save recorded its entries, then died before the release that would have
    // let the lock of 0.1.x drop its copies: the rows stay, numbered up to what the receipt says.
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
    await putLegacyIndexEntry(key);
    await store.write({ ...saved, revision: saved.revision + 1, intentsThrough: seq }, etag);

    const report = await runUpgrade(testUpgradeDeps([scope]));
    expect(report.intents.drained).toEqual([{ lock: key, merged: 0, dropped: 3 }]);
    expect((await receipt("preview", scope)).intents).toEqual([]);
    expect(await legacyRows(key)).toBe(0);
    expect(await legacyIndexed(key)).toBe(false);
    const next = await reliabilityEngine().apply({ ...address, plan });
    expect(next.run.status).toBe("succeeded");
    expect(next.warnings.join(" ")).not.toContain("recovered");
    expect(await mine(domain, scope)).toEqual(entriesOf(scope).sort());
    await expectSettled(expect, domain, [scope]);
  });

  it("a drain that saved and died before its drop: runs stay refused, and the next pass merges nothing twice", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const { address, key } = await crashedOn01(scope, plan);
    // The drop never reaches the lock (the isolate died after the receipt save).
    const dies = testUpgradeDeps([scope], (deps) => ({
      lock: (k) =>
        overriding(deps.lock(k), {
          drainLegacyIntents: async (req) => {
            if (req.drop) throw new Error("the isolate died");
            return deps.lock(k).drainLegacyIntents(req);
          },
        }),
    }));
    const first = await runUpgrade(dies);
    expect(first.intents.failed).toMatchObject([{ lock: key, code: "INTERNAL" }]);
    const saved = await receipt("preview", scope);
    expect(saved.intents).toHaveLength(3);
    expect(await legacyRows(key)).toBe(3);
    // The lock still says it keeps them: no run resolves the receipt's copies in between.
    const refused = await reliabilityEngine()
      .apply({ ...address, plan })
      .then(
        () => null,
        (err: unknown) => err as { code?: string },
      );
    expect(refused?.code).toBe("CONCURRENT_MODIFICATION");

    const second = await runUpgrade(testUpgradeDeps([scope]));
    expect(second.intents.drained).toEqual([{ lock: key, merged: 0, dropped: 3 }]);
    expect((await receipt("preview", scope)).intents).toEqual(saved.intents);
    const next = await reliabilityEngine().apply({ ...address, plan });
    expect(next.warnings.join(" ")).toContain("recovered 3 intent");
    expect(await mine(domain, scope)).toEqual(entriesOf(scope).sort());
    await expectSettled(expect, domain, [scope]);
  });

  it("a scope whose lease a run holds is skipped, busy, and drained by a later pass", async ({ expect }) => {
    const { domain, scope, plan } = await freshWorld();
    const { address, key } = await crashedOn01(scope, plan);
    const held = await stub(key).acquire({ key, holder: "run-other", ttlMs: 60_000 });
    if (!held.ok) throw new Error(held.error.message);
    const busy = await runUpgrade(testUpgradeDeps([scope]));
    expect(busy.intents).toMatchObject({ drained: [], busy: [key] });
    expect(await legacyRows(key)).toBe(3);
    await stub(key).release({ key, holder: "run-other", token: held.value.token });
    expect((await runUpgrade(testUpgradeDeps([scope]))).intents.drained).toEqual([
      { lock: key, merged: 3, dropped: 3 },
    ]);
    expect((await reliabilityEngine().recover(address)).run.status).toBe("succeeded");
    await expectSettled(expect, domain, [scope]);
  });

  it("intents naming a connection the next plan does not use: prepared from the receipt before the lease, one acquire", async ({
    expect,
  }) => {
    const old = await freshWorld();
    const { scope } = old;
    const { address } = await crashedOn01(scope, old.plan);
    await runUpgrade(testUpgradeDeps([scope]));
    // The next apply's plan is on another tenant: only the receipt names the old one.
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
    expect(scopeAcquires).toBe(1);
    expect(next.warnings.join(" ")).toContain("recovered 3 intent");
    expect(await mine(old.domain, scope)).toEqual([]);
    expect(await mine(other.domain, scope)).toEqual(entriesOf(scope).sort());
    await expectSettled(expect, other.domain, [scope]);
  });
});

describe("upgrading: why a run refuses a lock keeping intents of 0.1.x (control case)", () => {
  /** An engine whose scope grants never say the lock keeps intents of 0.1.x: the refusal removed. */
  function blindEngine() {
    const blind = <T extends { ok: boolean }>(r: T): T => {
      if (r.ok) delete (r as unknown as { value: { legacyIntents?: true } }).value.legacyIntents;
      return r;
    };
    return reliabilityEngine({
      wrapLocks: (inner) => ({
        ...inner,
        scope: (...args) => {
          const target = inner.scope(...args);
          return overriding(target, {
            acquire: async (req) => blind(await target.acquire(req)),
            claim: async (req) => blind(await target.claim(req)),
          });
        },
      }),
    });
  }

  it("without it, a destroy before the drain answers `noReceipt` and leaves the crashed run's entries; with it, nothing is lost", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const { address } = await crashedOn01(scope, plan);
    const blind = await blindEngine().destroy(address);
    // The untrue answer the refusal prevents: "nothing was applied", while three entries stand.
    expect(blind.run.status).toBe("succeeded");
    expect(blind.run.noReceipt).toBe(true);
    expect(await mine(domain, scope)).toEqual(entriesOf(scope).sort());

    const other = await freshWorld();
    const second = await crashedOn01(other.scope, other.plan);
    await expect(reliabilityEngine().destroy(second.address)).rejects.toMatchObject({
      code: "CONCURRENT_MODIFICATION",
    });
    await runUpgrade(testUpgradeDeps([other.scope]));
    const destroyed = await reliabilityEngine().destroy(second.address);
    expect(destroyed.run.status).toBe("succeeded");
    expect(await mine(other.domain, other.scope)).toEqual([]);
    await expectSettled(expect, other.domain, [other.scope]);
    // The first scope's entries are still the upgrade's to find: drained, then recovered.
    await runUpgrade(testUpgradeDeps([scope]));
    expect((await reliabilityEngine().recover(address)).run.status).toBe("succeeded");
    await expectSettled(expect, domain, [scope]);
  });
});
