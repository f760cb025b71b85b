/**
 * A scope lock's storage reset or restored from a backup (issue 29 item 3): its numbering of
 * intents started again while the receipt, in R2, still said how far earlier saves accounted
 * (`intentsThrough`). A crashed run's intents, kept in the lock under a low number, were then
 * skipped as settled and its provider entries leaked. Intents now live only in the receipt
 * (docs/design.md, "Writing one object's items"), so no number in one store is compared with one in
 * another.
 */

import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import { emptyReceipt } from "../../shared/schemas/receipt";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { expireLeaseNow } from "../helpers/locks";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { expectSettled, freshWorld, providerItems, reliabilityEngine } from "./harness";

describe("reliability: a scope lock whose storage was reset", () => {
  it("a run crashes after its write: the next destroy removes what it wrote, nothing leaks", async ({
    expect,
  }) => {
    const { domain, scope, plan } = await freshWorld();
    const address = { repository: DEFAULT_REPOSITORY, environment: "preview", scope };
    // The receipt of a scope whose lock had numbered five puts before its storage was reset: the
    // lock object here is new, its numbering starts at 1 again.
    await new R2ReceiptStore(env.RECEIPTS).write(
      { ...emptyReceipt(DEFAULT_REPOSITORY, "preview", scope), revision: 5, intentsThrough: 5 },
      null,
    );
    const crashing = reliabilityEngine({
      faults: (point) => {
        if (point === "after-write") throw new SimulatedCrash(point);
      },
    });
    await expect(crashing.apply({ ...address, plan })).rejects.toThrow(SimulatedCrash);
    expect((await providerItems(domain)).filter((i) => i.includes(scope))).not.toEqual([]);
    await expireLeaseNow(scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope));

    const destroyed = await reliabilityEngine().destroy(address);
    expect(destroyed.run.status).toBe("succeeded");
    expect((await providerItems(domain)).filter((i) => i.includes(scope))).toEqual([]);
    await expectSettled(expect, domain, [scope]);
  });
});
