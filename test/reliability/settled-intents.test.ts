/**
 * Intents are resolved once (docs/design.md, "Intent recovery"): a holder whose final save holds
 * them may die before its release, and the next holder must not resolve them a second time against
 * the newer ledger that save recorded (the retry's own remove intents once removed the entries its
 * save had recorded as the scope's). What 0.1.x's scope locks kept is the upgrade's:
 * test/upgrade/drain-legacy-intents.test.ts.
 */
import { describe, it } from "vitest";
import { ok } from "../../shared/errors";
import { scopeLockKey } from "../../shared/lock-keys";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { durableIntents, receipt } from "../helpers/engine";
import { overriding } from "../helpers/lock-overrides";
import { expireLeaseNow } from "../helpers/locks";
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
