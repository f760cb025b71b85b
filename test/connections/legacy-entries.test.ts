/**
 * Receipts written before connections carry the plan's provider block in each entry. A destroy
 * removes such an entry through the configured connection whose settings the block repeats; an
 * entry that matches none is reported and kept, and its block's own host receives nothing.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LedgerEntry } from "../../shared/schemas/receipt";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { call, destroy, observedApp, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { APP_CLIENT, auth0Connection, TEST_M2M } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";

async function legacyReceipt(scope: string, domain: string, url: string) {
  const entry: LedgerEntry = {
    line: "callback",
    op: "auth0.callbackUrl",
    provider: {
      type: "auth0",
      domain,
      clientId: TEST_M2M.clientId,
      clientSecret: { secret: "AUTH0_CLIENT_SECRET" },
    },
    params: { client: APP_CLIENT, url },
    key: url,
    parent: `auth0:${domain}:client:${APP_CLIENT}`,
    runId: "run-before-connections",
    createdAt: 1,
  };
  const store = new R2ReceiptStore(env.RECEIPTS);
  await store.write(
    {
      version: 1,
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      revision: 0,
      ledger: [entry],
      intents: [],
      runs: [],
    },
    null,
  );
}

describe("entries recorded before connections", () => {
  it("a destroy removes them through the configured connection with the same settings", async () => {
    const domain = freshAuth0Domain();
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    await seedAuth0Tenant(domain, {
      m2m: TEST_M2M,
      clients: { [APP_CLIENT]: { callbacks: [url, "https://keep.example.com"] } },
    });
    auth0Connection(domain);
    await legacyReceipt(scope, domain, url);
    const result = await destroy(testApp(), "preview", scope);
    expect(result.run.status).toBe("succeeded");
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual(["https://keep.example.com"]);
  });

  it("an entry no configured connection matches is kept and reported; nothing is sent anywhere", async () => {
    const { app, hosts } = observedApp();
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    await legacyReceipt(scope, "attacker.example.com", url);
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/destroy`, {});
    // A failed run is never a 2xx: 422, a record the service cannot act on (VALIDATION) until configured.
    expect(res.status).toBe(422);
    const result = (await res.json()) as {
      run: { status: string };
      lines: Array<{ result: string; error?: { message: string } }>;
    };
    expect(result.run.status).toBe("failed");
    expect(result.lines[0]?.error?.message).toContain("recorded before connections");
    expect(hosts).toEqual([]);
    expect((await receipt("preview", scope)).ledger).toHaveLength(1);
  });
});
