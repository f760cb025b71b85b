/**
 * docs/design.md, "Run algorithm", step 6: a failed run's rollback resolves the intents it left.
 * A remove intent never takes the place of the create intent it resolves until the removal is
 * durable: a rollback whose removal fails before it touched anything leaves the create intent,
 * so a later run still finds (and removes) the entry that write may have put there.
 */
import { describe, expect, it } from "vitest";
import { SponsonError } from "../../shared/errors";
import { apply, destroy, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { durableIntents, freshPr, receipt } from "../helpers/engine";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";

/** The create's write lands and then fails; the rollback's removal fails before its write. */
const failingApp = testApp({
  engine: {
    faults: (at, { action }) => {
      if (at === "after-write" && action === "create")
        throw new SponsonError("PROVIDER_ERROR", "the answer to the write was lost");
      if (at === "after-intent" && action === "remove")
        throw new SponsonError("LOCK_LOST", "the scope lease ended before the rollback's write");
    },
  },
});

describe("rollback's remove intent", () => {
  it("a removal that fails before touching anything leaves the create intent; the next run removes the entry", async () => {
    const domain = freshAuth0Domain("rb");
    await seedTenant(domain);
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const plan = auth0Plan(domain, [{ id: "cb", op: "auth0.callbackUrl", url }]);
    const failed = await apply(failingApp, "preview", scope, plan);
    expect(failed.run.status).toBe("failed");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([url]);
    expect((await durableIntents("preview", scope)).map((i) => [i.action, i.key, i.runId])).toEqual([
      ["create", url, failed.run.id],
    ]);

    const cleaned = await destroy(testApp(), "preview", scope);
    expect(cleaned.run.status).toBe("succeeded");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  });

  it("a removal whose answer is lost is resolved again before the run answers: nothing left, nothing recorded", async () => {
    const lossy = testApp({
      engine: {
        faults: (at) => {
          if (at === "after-write")
            throw new SponsonError("PROVIDER_ERROR", "the answer to the write was lost");
        },
      },
    });
    const domain = freshAuth0Domain("rb2");
    await seedTenant(domain);
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const failed = await apply(
      lossy,
      "preview",
      scope,
      auth0Plan(domain, [{ id: "cb", op: "auth0.callbackUrl", url }]),
    );
    expect(failed.run.status).toBe("failed");
    // The rollback's removal reached the provider and its answer was lost: its own intent and the
    // create intent stayed, and the run's second resolution found the item gone and dropped both.
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    const left = await receipt("preview", scope);
    expect({ intents: await durableIntents("preview", scope), ledger: left.ledger }).toEqual({
      intents: [],
      ledger: [],
    });
  });
});
