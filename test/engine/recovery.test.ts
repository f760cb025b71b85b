/**
 * docs/design.md, "Run algorithm", apply step 5: intents left by a crashed run are resolved before the next
 * run does anything.
 */
import { describe, expect, it } from "vitest";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { apply, call, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { durableIntents, freshPr, receipt } from "../helpers/engine";
import { APP_CLIENT, auth0Plan, seedTenant } from "../helpers/plans";

const crashingAt = (point: "after-intent" | "after-write") =>
  testApp({
    engine: {
      faults: (at) => {
        if (at === point) throw new SimulatedCrash(at);
      },
    },
  });

const plan = (domain: string) =>
  auth0Plan(domain, [
    { id: "cb", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
  ]);

describe("crash recovery", () => {
  it("a crash after the intent and before the write leaves an intent; the next apply resolves it and creates the entry once", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    await expect(apply(crashingAt("after-intent"), "preview", scope, plan(domain))).rejects.toThrow();
    expect((await durableIntents("preview", scope)).map((i) => [i.action, i.key])).toEqual([
      ["create", `https://${scope}.preview.example.com/callback`],
    ]);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);

    const result = await apply(testApp(), "preview", scope, plan(domain));
    expect(result.run.status).toBe("succeeded");
    expect(result.warnings.join(" ")).toContain("recovered 1 intent");
    const after = await receipt("preview", scope);
    expect(await durableIntents("preview", scope)).toEqual([]);
    expect(after.ledger.map((e) => e.key)).toEqual([`https://${scope}.preview.example.com/callback`]);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([
      `https://${scope}.preview.example.com/callback`,
    ]);
  });

  it("a crash after the write and before the ledger entry: the orphan is removed by recovery, then re-created and owned", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    await expect(apply(crashingAt("after-write"), "preview", scope, plan(domain))).rejects.toThrow();
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([url]);
    expect((await receipt("preview", scope)).ledger).toEqual([]);

    const result = await apply(testApp(), "preview", scope, plan(domain));
    expect(result.run.status).toBe("succeeded");
    const after = await receipt("preview", scope);
    expect(await durableIntents("preview", scope)).toEqual([]);
    expect(after.ledger.map((e) => [e.key, e.runId])).toEqual([[url, result.run.id]]);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([url]);
  });

  it("destroy after a crash removes the orphan too: nothing is left behind", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    await expect(apply(crashingAt("after-write"), "preview", scope, plan(domain))).rejects.toThrow();
    const res = await call(testApp(), "POST", `/v1/scopes/preview/${scope}/destroy`, {});
    expect(res.status).toBe(200);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
    const after = await receipt("preview", scope);
    expect(await durableIntents("preview", scope)).toEqual([]);
    expect(after.ledger).toEqual([]);
  });
});
