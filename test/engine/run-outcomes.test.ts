/**
 * Honest run outcomes: a 409 CONCURRENT_MODIFICATION problem means "refused, nothing written", so a
 * receipt conflict after the run has written is a failed run with its lines; and every failed
 * apply is recorded in the receipt, also one refused for a secret in a lock identity.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../shared/schemas/run";
import { lockStub } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { apply, call, observedApp, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { freshPr, providerWrites, receipt } from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant, TEST_M2M } from "../helpers/plans";
import { DEFAULT_REPOSITORY, scopeAddress } from "../helpers/repositories";

/** Another writer changes the scope's receipt: the run's next conditional put meets a new etag. */
async function changeReceiptBehindTheRun(scope: string): Promise<void> {
  const store = new R2ReceiptStore(env.RECEIPTS);
  const { receipt: current, etag } = await store.read(scopeAddress("preview", scope));
  await store.write({ ...current, revision: current.revision + 1 }, etag);
}

describe("run outcomes", () => {
  it("a receipt conflict after the run wrote to the provider answers 409 with a failed run and its lines", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    let changed = 0;
    const app = testApp({
      engine: {
        faults: async (point) => {
          if (point !== "after-write" || changed > 0) return;
          changed += 1;
          await changeReceiptBehindTheRun(scope);
        },
      },
    });
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, { plan: previewPlan(domain) });
    // A failed run is never a 2xx (docs/design.md, "Run outcomes and status codes"); the run is the
    // body still.
    expect(res.status).toBe(409);
    const result = (await res.json()) as RunResult;
    expect(changed).toBe(1);
    expect(result.run.status).toBe("failed");
    expect(result.run.error?.code).toBe("CONCURRENT_MODIFICATION");
    expect(result.lines[0]).toMatchObject({ id: "callback", result: "created" });
    expect(result.warnings.join("\n")).toContain("was not recorded in the receipt");
    // The write did happen: that is why this is a run outcome and not a refusal.
    expect(await providerWrites(domain)).toBeGreaterThan(0);

    // The intent saved before the write survived in the receipt; the next run resolves it.
    const next = await apply(testApp(), "preview", scope, previewPlan(domain));
    expect(next.run.status).toBe("succeeded");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toContain(
      `https://${scope}.preview.example.com/callback`,
    );
  });

  it("control: a receipt conflict before the run wrote anything stays a 409 refusal", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    expect((await apply(testApp(), "preview", scope, previewPlan(domain))).run.status).toBe("succeeded");
    const writes = await providerWrites(domain);
    // Re-applying the same plan writes nothing until its closing save; the receipt changes while
    // the run reads the provider (its first provider read under the scope lease).
    let changed = 0;
    const app = testApp({
      engine: {
        wrapFetch: (inner) => async (input, init) => {
          const answer = await inner(input, init);
          const method = new Request(input, init).method;
          if (method === "GET" && changed === 0) {
            changed += 1;
            await changeReceiptBehindTheRun(scope);
          }
          return answer;
        },
      },
    });
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, { plan: previewPlan(domain) });
    expect(changed).toBe(1);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: "CONCURRENT_MODIFICATION" });
    expect(await providerWrites(domain)).toBe(writes);
  });

  it("an apply refused for a secret in its lock identity is recorded, under a short scope lease, without the secret or any provider request", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const plan = previewPlan(domain);
    for (const line of plan.lines) line.params.client = TEST_M2M.clientSecret.replace(/[^A-Za-z0-9_-]/g, "");
    const { app, hosts } = observedApp();
    const result = await apply(app, "preview", scope, plan);
    expect(result.run.status).toBe("failed");
    expect(result.lines.map((l) => l.error?.code)).toEqual(["INTERNAL", "INTERNAL", "INTERNAL"]);
    expect(hosts).toEqual([]);
    expect(await providerWrites(domain)).toBe(0);

    const stored = await receipt("preview", scope);
    expect(stored.runs).toHaveLength(1);
    expect(stored.runs[0]).toMatchObject({
      id: result.run.id,
      action: "apply",
      status: "failed",
      created: [],
    });
    expect(stored.runs[0]?.error?.code).toBe("INTERNAL");
    expect(stored.ledger).toEqual([]);
    const raw = await env.RECEIPTS.get(`receipts/${DEFAULT_REPOSITORY.id}/preview/${scope}.json`);
    expect(raw).not.toBeNull();
    expect(await raw?.text()).not.toContain(TEST_M2M.clientSecret);

    // The scope lease was taken by this run only to save the record, and given back.
    const key = `scope:${DEFAULT_REPOSITORY.id}/preview/${scope}`;
    const lock = await lockStub(env, key).read({ key });
    expect(lock.held).toBe(false);
    expect(lock.history.map((h) => [h.transition, h.holder])).toEqual([
      ["acquired", result.run.id],
      ["released", result.run.id],
    ]);
  });

  it("a refused preview is not recorded and takes no lease", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const plan = previewPlan(domain);
    for (const line of plan.lines) line.params.client = TEST_M2M.clientSecret.replace(/[^A-Za-z0-9_-]/g, "");
    const res = await call(testApp(), "POST", `/v1/scopes/preview/${scope}/preview`, { plan });
    // The line's refusal is INTERNAL (a registered secret): the failed run answers 500.
    expect(res.status).toBe(500);
    expect(((await res.json()) as RunResult).run.status).toBe("failed");
    expect((await receipt("preview", scope)).runs).toEqual([]);
    const key = `scope:${DEFAULT_REPOSITORY.id}/preview/${scope}`;
    expect((await lockStub(env, key).read({ key })).history).toEqual([]);
  });
});
