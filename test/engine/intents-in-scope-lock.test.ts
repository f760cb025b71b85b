/**
 * Intents durable in the scope lock (issue 24 item 3, docs/design.md "Writing one object's items"):
 * a group's intents go to the scope lock with one token-checked call that renews the lease, not to
 * a receipt put of their own; the run's final save holds whatever is unresolved, and the lock keeps
 * a crashed run's intents for the next holder, whose recovery resolves them.
 */
import { describe, expect, it } from "vitest";
import { SimulatedCrash } from "../../workers/engine/deps";
import { apply, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { durableIntents, freshPr, receipt } from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";

describe("intents durable in the scope lock", () => {
  it("a three-line apply on a warm application writes the receipt once (was twice: the intents' put and the final one)", async () => {
    const domain = freshAuth0Domain("intents");
    await seedTenant(domain);
    await apply(testApp(), "preview", freshPr(), previewPlan(domain)); // warms the token and the lock
    const scope = freshPr();
    const result = await apply(testApp(), "preview", scope, previewPlan(domain));
    expect(result.lines.map((l) => l.result)).toEqual(["created", "created", "created"]);
    expect(result.counts?.storageWrites).toBe(1);
    expect(await durableIntents("preview", scope)).toEqual([]);
  });

  it("a run that dies after its intents: they are durable in the lock, not the receipt, and the next run recovers them", async () => {
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
    expect((await receipt("preview", scope)).intents).toEqual([]);
    expect((await durableIntents("preview", scope)).map((i) => i.line).sort()).toEqual([
      "callback",
      "logout",
      "origin",
    ]);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toHaveLength(1);

    const next = await apply(testApp(), "preview", scope, previewPlan(domain));
    expect(next.run.status).toBe("succeeded");
    expect(next.warnings.join(" ")).toContain("recovered 3 intent");
    expect(await durableIntents("preview", scope)).toEqual([]);
    expect((await receipt("preview", scope)).ledger).toHaveLength(3);
  });
});
