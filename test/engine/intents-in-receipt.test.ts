/**
 * Intents have one home, the receipt (issue 29 item 3, docs/design.md "Writing one object's
 * items"): a group's intents are a receipt put before its parent lease, the run's final save
 * records the outcome, and a crashed run's intents are in the receipt for the next run to recover.
 * The scope lock keeps none.
 */
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { apply, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { legacyRows } from "../upgrade/legacy-state";

describe("intents durable in the receipt", () => {
  it("a three-line apply on a warm application writes the receipt twice: the intents' put and the final one", async () => {
    const domain = freshAuth0Domain("intents");
    await seedTenant(domain);
    await apply(testApp(), "preview", freshPr(), previewPlan(domain)); // warms the token and the lock
    const scope = freshPr();
    const result = await apply(testApp(), "preview", scope, previewPlan(domain));
    expect(result.lines.map((l) => l.result)).toEqual(["created", "created", "created"]);
    expect(result.counts?.storageWrites).toBe(2);
    expect((await receipt("preview", scope)).intents).toEqual([]);
  });

  it("a run that dies after its write: its intents are in the receipt, none in the lock, and the next run recovers them", async () => {
    const domain = freshAuth0Domain("intents");
    await seedTenant(domain);
    const scope = freshPr();
    const crashing = testApp({
      engine: {
        faults: (point) => {
          if (point === "after-write") throw new SimulatedCrash(point);
        },
      },
    });
    await expect(apply(crashing, "preview", scope, previewPlan(domain))).rejects.toThrow();
    expect((await receipt("preview", scope)).intents.map((i) => i.line).sort()).toEqual([
      "callback",
      "logout",
      "origin",
    ]);
    expect(await legacyRows(scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope))).toBe(0);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toHaveLength(1);

    const next = await apply(testApp(), "preview", scope, previewPlan(domain));
    expect(next.run.status).toBe("succeeded");
    expect(next.warnings.join(" ")).toContain("recovered 3 intent");
    expect((await receipt("preview", scope)).intents).toEqual([]);
    expect((await receipt("preview", scope)).ledger).toHaveLength(3);
  });
});
