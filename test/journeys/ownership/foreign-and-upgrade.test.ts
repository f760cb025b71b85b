/**
 * Ownership edge cases: an entry that was there before any scope (foreign) is never removed by a
 * destroy or a rollback; two scopes wanting the same entry (pr-41, pr-42) keep it until both have
 * gone; and receipts written before ownership existed keep working — the first run under the new
 * code rebuilds ownership from the ledgers it finds, removing nothing.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LedgerEntry } from "../../../shared/schemas/receipt";
import { R2ReceiptStore } from "../../../workers/receipts/r2-receipt-store";
import { apply, call, destroy, testApp } from "../../helpers/app";
import { auth0Client, freshAuth0Domain } from "../../helpers/emulators";
import { appIdentity, freshPr, receipt } from "../../helpers/engine";
import { APP_CLIENT, auth0Connection, auth0Plan, seedTenant } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

const app = testApp();
const LOCAL = "http://localhost:3000/callback";

async function callbacks(domain: string): Promise<string[]> {
  return (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
}

const localPlan = (domain: string) =>
  auth0Plan(domain, [{ id: "local", op: "auth0.callbackUrl", url: LOCAL }]);

describe("foreign entries", () => {
  it("an entry present before any scope is recorded as foreign and survives destroy and rollback", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain, { callbacks: [LOCAL] });
    const [a, b] = [freshPr(), freshPr()];
    const first = await apply(app, "preview", a, localPlan(domain));
    expect(first.lines[0]).toMatchObject({ diff: "unchanged", result: "foreign" });
    expect((await receipt("preview", a)).ledger[0]?.holding).toBe("foreign");
    expect((await destroy(app, "preview", a)).lines[0]?.result).toBe("released");
    expect(await callbacks(domain)).toEqual([LOCAL]);

    await apply(app, "preview", b, localPlan(domain));
    const rolledBack = await call(app, "POST", `/v1/scopes/preview/${b}/rollback`, {});
    expect(rolledBack.status).toBe(200);
    expect(await callbacks(domain)).toEqual([LOCAL]);
    expect((await receipt("preview", b)).ledger).toEqual([]);
  });
});

describe("pr-41 and pr-42 want the same callback", () => {
  it("pr-42 shares what pr-41 created; pr-41's destroy keeps it, pr-42's removes it", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const [pr41, pr42] = [freshPr(), freshPr()];
    expect((await apply(app, "preview", pr41, localPlan(domain))).lines[0]?.result).toBe("created");
    expect((await apply(app, "preview", pr42, localPlan(domain))).lines[0]?.result).toBe("shared");

    const ledger = await call(app, "GET", `/v1/scopes/preview/${pr42}/ledger`);
    const body = (await ledger.json()) as {
      ledger: Array<{ key: string; holding: string; otherOwners: number }>;
    };
    expect(body.ledger).toEqual([expect.objectContaining({ key: LOCAL, holding: "shared", otherOwners: 1 })]);

    expect((await destroy(app, "preview", pr41)).lines[0]?.result).toBe("released");
    expect(await callbacks(domain)).toEqual([LOCAL]);
    const after = (await (await call(app, "GET", `/v1/scopes/preview/${pr42}/ledger`)).json()) as typeof body;
    expect(after.ledger[0]).toMatchObject({ holding: "shared", otherOwners: 0 });
    expect((await destroy(app, "preview", pr42)).lines[0]?.result).toBe("removed");
    expect(await callbacks(domain)).toEqual([]);
  });
});

describe("upgrade from receipts without ownership", () => {
  it("the first run rebuilds ownership from the ledgers: the older owner keeps its entry, nothing is removed", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain, { callbacks: [LOCAL] });
    const [older, newer] = [freshPr(), freshPr()];
    // Written by the previous version: the entry is in `older`'s ledger, no lock knows an owner.
    const entry: LedgerEntry = {
      line: "local",
      op: "auth0.callbackUrl",
      connection: auth0Connection(domain),
      params: { client: APP_CLIENT, url: LOCAL },
      key: LOCAL,
      parent: appIdentity(domain),
      runId: "run-before-ownership",
      createdAt: 1,
    };
    await new R2ReceiptStore(env.RECEIPTS).write(
      {
        version: 1,
        repository: DEFAULT_REPOSITORY,
        environment: "preview",
        scope: older,
        revision: 1,
        ledger: [entry],
        intents: [],
        runs: [],
      },
      null,
    );
    // `newer` finds the entry present: the rebuild shows `older` owns it, so it is shared, not foreign.
    expect((await apply(app, "preview", newer, localPlan(domain))).lines[0]?.result).toBe("shared");
    expect(await callbacks(domain)).toEqual([LOCAL]);
    expect((await destroy(app, "preview", newer)).lines[0]?.result).toBe("released");
    expect(await callbacks(domain)).toEqual([LOCAL]);
    expect((await destroy(app, "preview", older)).lines[0]?.result).toBe("removed");
    expect(await callbacks(domain)).toEqual([]);
  });

  it("an entry named only by an older run's create intent counts as that scope's: not foreign, and its recovery removes it", async () => {
    const domain = freshAuth0Domain();
    const url = "https://pr-crashed.preview.example.com/callback";
    // The previous version's run wrote the entry and crashed before its ledger entry: only its
    // create intent names it (an older version's: no `claims` mark), and no lock knows an owner yet.
    await seedTenant(domain, { callbacks: [url] });
    const [older, newer] = [freshPr(), freshPr()];
    await new R2ReceiptStore(env.RECEIPTS).write(
      {
        version: 1,
        repository: DEFAULT_REPOSITORY,
        environment: "preview",
        scope: older,
        revision: 1,
        ledger: [],
        intents: [
          {
            action: "create",
            line: "cb",
            op: "auth0.callbackUrl",
            connection: auth0Connection(domain),
            params: { client: APP_CLIENT, url },
            key: url,
            parent: appIdentity(domain),
            runId: "run-crashed-before-ownership",
            at: 1,
          },
        ],
        runs: [],
      },
      null,
    );
    const plan = auth0Plan(domain, [{ id: "cb", op: "auth0.callbackUrl", url }]);
    // The rebuild names `older` an owner: `newer` shares it rather than calling it foreign.
    expect((await apply(app, "preview", newer, plan)).lines[0]?.result).toBe("shared");
    expect((await destroy(app, "preview", newer)).lines[0]?.result).toBe("released");
    // `older`'s recovery removes what its crashed run left, since nobody else wants it now.
    await destroy(app, "preview", older);
    expect(await callbacks(domain)).toEqual([]);
  });
});
