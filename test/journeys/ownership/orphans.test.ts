/**
 * Orphans and drift across owners. An entry whose owner's receipt was lost, or that someone added
 * after the service first looked at the list, is reported by the sweep's search (GET /v1/orphans)
 * when an environment's policy admits it; an admin removes it with a recorded reason. Entries a
 * live scope owns, and foreign ones, are never reported and cannot be removed that way. An owned
 * entry that disappears is reported missing to every owner that runs.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { OrphanList, OrphanRemoval } from "../../../shared/schemas/orphans";
import type { Plan } from "../../../shared/schemas/plan";
import { ORPHAN_AUDIT_PREFIX } from "../../../workers/lock-views/owned-objects";
import { receiptKey } from "../../../workers/receipts/layout";
import { R2ReceiptStore } from "../../../workers/receipts/r2-receipt-store";
import { apply, call, testApp } from "../../helpers/app";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { appIdentity, freshPr } from "../../helpers/engine";
import { APP_CLIENT, auth0Connection, auth0Plan, seedTenant, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY, scopeAddress } from "../../helpers/repositories";
import { bearer } from "../../helpers/tokens";

const app = testApp();
const FOREIGN = "https://app.example.com/callback";
const url = (scope: string) => `https://${scope}.preview.example.com/callback`;
const plan = (domain: string) =>
  auth0Plan(domain, [
    { id: "cb", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
  ]);

async function callbacks(domain: string): Promise<string[]> {
  return (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
}

async function setCallbacks(domain: string, list: string[]) {
  await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { callbacks: list } } });
}

async function orphansOn(domain: string, bindings = env): Promise<string[]> {
  const res = await call(app, "GET", "/v1/orphans", undefined, await bearer("admin"), bindings);
  expect(res.status).toBe(200);
  const body = (await res.json()) as OrphanList;
  return body.orphans.filter((o) => o.parent === appIdentity(domain)).map((o) => o.key);
}

const removal = (domain: string, key: string) => ({
  parent: appIdentity(domain),
  op: "auth0.callbackUrl",
  key,
  reason: "left by a lost receipt (ticket 42)",
});

describe("orphans", () => {
  it("a lost receipt's entry and one added by hand are reported; an admin removes one with a reason", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain, { callbacks: [FOREIGN] });
    const [lost, live] = [freshPr(), freshPr()];
    await apply(app, "preview", lost, plan(domain));
    await apply(app, "preview", live, plan(domain));
    await env.RECEIPTS.delete(receiptKey(DEFAULT_REPOSITORY.id, "preview", lost));
    const byHand = "https://someone.preview.example.com/callback";
    await setCallbacks(domain, [...(await callbacks(domain)), byHand]);

    // The foreign entry and the live scope's are never orphans.
    expect((await orphansOn(domain)).sort()).toEqual([byHand, url(lost)].sort());

    const res = await call(app, "POST", "/v1/orphans/remove", removal(domain, url(lost)));
    expect(res.status).toBe(200);
    const removed = (await res.json()) as OrphanRemoval;
    expect(removed).toMatchObject({ outcome: "removed", reason: "left by a lost receipt (ticket 42)" });
    expect(removed.actor).toBeTruthy();
    expect(await callbacks(domain)).toEqual([FOREIGN, url(live), byHand]);
    expect(await orphansOn(domain)).toEqual([byHand]);

    const audit = await env.RECEIPTS.list({ prefix: ORPHAN_AUDIT_PREFIX });
    const records = await Promise.all(
      audit.objects.map(async (o) => (await (await env.RECEIPTS.get(o.key))?.json()) as OrphanRemoval),
    );
    // The intent written before the removal, completed with it (test/audit/audit-intents.test.ts).
    expect(records).toContainEqual({
      ...removed,
      id: removed.runId,
      startedAt: expect.any(Number),
      status: "done",
    });
  });

  it("an owned entry or a foreign one is refused, not retriable, and nothing is removed", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain, { callbacks: [FOREIGN] });
    const scope = freshPr();
    await apply(app, "preview", scope, plan(domain));
    for (const key of [url(scope), FOREIGN]) {
      const res = await call(app, "POST", "/v1/orphans/remove", removal(domain, key));
      expect(res.status).toBe(409);
      expect(await res.json()).toMatchObject({ code: "CONCURRENT_MODIFICATION", retriable: false });
    }
    expect(await callbacks(domain)).toEqual([FOREIGN, url(scope)]);
  });

  it("only entries some environment's policy admits are reported", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    await apply(app, "preview", freshPr(), plan(domain));
    const inside = "https://someone.preview.example.com/callback";
    const outside = "https://intruder.example.org/callback";
    await setCallbacks(domain, [...(await callbacks(domain)), inside, outside]);
    const policy = JSON.stringify({
      version: 1,
      environments: {
        preview: { parents: ["auth0:*:client:*"], items: ["https://*.preview.example.com/*"] },
      },
    });
    expect(await orphansOn(domain, { ...env, SPONSON_POLICY: policy })).toEqual([inside]);
  });

  it("orphans are an admin's: a viewer or ci token is refused", async () => {
    for (const role of ["viewer", "ci"] as const) {
      const res = await call(app, "GET", "/v1/orphans", undefined, await bearer(role));
      expect(res.status).toBe(403);
    }
  });
});

describe("drift across owners", () => {
  it("an entry two scopes own that disappears is reported missing to each owner that runs, and recreated", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const shared = auth0Plan(domain, [
      { id: "local", op: "auth0.callbackUrl", url: "http://localhost:3000/cb" },
    ]);
    const [a, b] = [freshPr(), freshPr()];
    await apply(app, "preview", a, shared);
    expect((await apply(app, "preview", b, shared)).lines[0]?.result).toBe("shared");
    for (const scope of [b, a]) {
      await setCallbacks(domain, []);
      const result = await apply(app, "preview", scope, shared);
      expect(result.drift).toEqual([
        expect.objectContaining({ key: "http://localhost:3000/cb", kind: "missing" }),
      ]);
      expect(result.lines[0]?.result).toBe("created");
      expect(await callbacks(domain)).toEqual(["http://localhost:3000/cb"]);
    }
  });

  it("an owner whose receipt names the URL only on another application is a ghost here: the entry is an orphan", async () => {
    const domain = freshAuth0Domain();
    const other = "other-app";
    await seedAuth0Tenant(domain, {
      m2m: TEST_M2M,
      clients: { [APP_CLIENT]: { callbacks: [] }, [other]: { callbacks: [] } },
    });
    const scope = freshPr();
    const connection = auth0Connection(domain);
    const both: Plan = {
      version: 2,
      lines: [APP_CLIENT, other].map((client) => ({
        id: client,
        op: "auth0.callbackUrl",
        connection,
        params: { client, url: url(scope) },
      })),
    };
    await apply(app, "preview", scope, both);
    // The entry on the other application is lost from the receipt (a lost save); the one on the
    // test application, same op and URL, is still there.
    const store = new R2ReceiptStore(env.RECEIPTS);
    const { receipt, etag } = await store.read(scopeAddress("preview", scope));
    await store.write({ ...receipt, ledger: receipt.ledger.filter((e) => e.line === APP_CLIENT) }, etag);

    const res = await call(app, "GET", "/v1/orphans", undefined, await bearer("admin"));
    const body = (await res.json()) as OrphanList;
    expect(body.orphans.filter((o) => o.key === url(scope)).map((o) => o.parent)).toEqual([
      appIdentity(domain, other),
    ]);
  });
});
