/**
 * An item is `(op, key, parent)`; the plan line that manages it is only its label
 * (docs/design.md, "Ownership of shared entries"). Editing a plan between two applies — renaming a
 * line, changing its op, moving its URL to another application or connection, changing the URL —
 * takes away what the plan no longer wants and creates (or joins) what it does: no false drift,
 * nothing left behind after destroy, and no entry another scope still wants taken away.
 */

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { LedgerEntry } from "../../../shared/schemas/receipt";
import { R2ReceiptStore } from "../../../workers/receipts/r2-receipt-store";
import { apply, call, destroy, testApp } from "../../helpers/app";
import { registerConnection } from "../../helpers/connections";
import { auth0Client, emulatorStub, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { appIdentity, freshPr, providerWrites, receipt } from "../../helpers/engine";
import { APP_CLIENT, auth0Connection, SECRET_NAME, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY, scopeAddress } from "../../helpers/repositories";

const app = testApp();
const OTHER_CLIENT = "other-app";
const url = (scope: string) => `https://${scope}.preview.example.com/x`;
/** A URL that is an item of a callback list and of a web-origins list alike. */
const origin = (scope: string) => `https://${scope}.preview.example.com`;

async function seed(domain: string, other: { callbacks?: string[] } = {}) {
  const lists = { callbacks: [], allowed_logout_urls: [], web_origins: [], allowed_origins: [] };
  await seedAuth0Tenant(domain, {
    m2m: TEST_M2M,
    clients: { [APP_CLIENT]: lists, [OTHER_CLIENT]: { ...lists, ...other } },
  });
}

function plan(
  line: { id: string; op: string; url: string; client?: string; connection?: string },
  domain: string,
): Plan {
  return {
    version: 2,
    lines: [
      {
        id: line.id,
        op: line.op,
        connection: line.connection ?? auth0Connection(domain),
        params: { client: line.client ?? APP_CLIENT, url: line.url },
      },
    ],
  };
}

async function lists(domain: string, client = APP_CLIENT) {
  const c = await auth0Client(domain, client);
  return { callbacks: c?.callbacks ?? [], web_origins: c?.web_origins ?? [] };
}

describe("an edited plan leaves nothing behind", () => {
  it("same line, another op: the old entry goes, the new one is created, no false drift, destroy clears both", async () => {
    const domain = freshAuth0Domain("edit");
    await seed(domain);
    const scope = freshPr();
    const x = origin(scope);
    await apply(app, "preview", scope, plan({ id: "x", op: "auth0.callbackUrl", url: x }, domain));
    expect(await lists(domain)).toEqual({ callbacks: [x], web_origins: [] });

    const edited = await apply(
      app,
      "preview",
      scope,
      plan({ id: "x", op: "auth0.webOrigin", url: x }, domain),
    );
    expect(edited.run.status).toBe("succeeded");
    expect(edited.drift).toEqual([]);
    expect(edited.lines.map((l) => [l.id, l.op, l.result])).toEqual([
      ["x", "auth0.webOrigin", "created"],
      ["x", "auth0.callbackUrl", "removed"],
    ]);
    expect(await lists(domain)).toEqual({ callbacks: [], web_origins: [x] });
    expect((await receipt("preview", scope)).ledger.map((e) => [e.line, e.op])).toEqual([
      ["x", "auth0.webOrigin"],
    ]);

    const destroyed = await destroy(app, "preview", scope);
    expect(destroyed.run.status).toBe("succeeded");
    expect(await lists(domain)).toEqual({ callbacks: [], web_origins: [] });
  });

  it("same line moved to an application where another scope owns the URL: it joins, and the other scope's destroy keeps it", async () => {
    const domain = freshAuth0Domain("move");
    await seed(domain);
    const [mine, theirs] = [freshPr(), freshPr()];
    const shared = url(mine);
    await apply(app, "preview", mine, plan({ id: "x", op: "auth0.callbackUrl", url: shared }, domain));
    const other = plan({ id: "y", op: "auth0.callbackUrl", url: shared, client: OTHER_CLIENT }, domain);
    expect((await apply(app, "preview", theirs, other)).lines[0]?.result).toBe("created");

    const moved = await apply(
      app,
      "preview",
      mine,
      plan({ id: "x", op: "auth0.callbackUrl", url: shared, client: OTHER_CLIENT }, domain),
    );
    expect(moved.run.status).toBe("succeeded");
    expect(moved.drift).toEqual([]);
    expect(moved.lines.map((l) => [l.id, l.parent?.endsWith(OTHER_CLIENT), l.result])).toEqual([
      ["x", true, "shared"],
      ["x", false, "removed"],
    ]);
    expect(
      (await receipt("preview", mine)).ledger.map((e) => [e.parent?.endsWith(OTHER_CLIENT), e.holding]),
    ).toEqual([[true, "shared"]]);
    expect((await lists(domain)).callbacks).toEqual([]);

    // The other scope goes: the URL stays, this scope still wants it.
    expect((await destroy(app, "preview", theirs)).lines[0]?.result).toBe("released");
    expect((await lists(domain, OTHER_CLIENT)).callbacks).toEqual([shared]);
    expect((await destroy(app, "preview", mine)).lines[0]?.result).toBe("removed");
    expect((await lists(domain, OTHER_CLIENT)).callbacks).toEqual([]);
  });

  it("same line moved to an application where the URL is foreign: it joins as foreign and destroy keeps it", async () => {
    const domain = freshAuth0Domain("fgn");
    const scope = freshPr();
    const x = url(scope);
    await seed(domain, { callbacks: [x] });
    await apply(app, "preview", scope, plan({ id: "x", op: "auth0.callbackUrl", url: x }, domain));
    const moved = await apply(
      app,
      "preview",
      scope,
      plan({ id: "x", op: "auth0.callbackUrl", url: x, client: OTHER_CLIENT }, domain),
    );
    expect(moved.lines.map((l) => l.result)).toEqual(["foreign", "removed"]);
    expect((await lists(domain)).callbacks).toEqual([]);
    expect((await destroy(app, "preview", scope)).lines.map((l) => l.result)).toEqual(["released"]);
    expect((await lists(domain, OTHER_CLIENT)).callbacks).toEqual([x]);
  });

  it("a renamed line keeps owning its item: nothing written, destroy removes it", async () => {
    const domain = freshAuth0Domain("ren");
    await seed(domain);
    const scope = freshPr();
    const x = url(scope);
    await apply(app, "preview", scope, plan({ id: "x", op: "auth0.callbackUrl", url: x }, domain));
    const writes = await providerWrites(domain);
    const renamed = await apply(
      app,
      "preview",
      scope,
      plan({ id: "y", op: "auth0.callbackUrl", url: x }, domain),
    );
    expect(renamed.lines.map((l) => [l.id, l.result])).toEqual([["y", "unchanged"]]);
    expect(await providerWrites(domain)).toBe(writes);
    expect((await receipt("preview", scope)).ledger.map((e) => e.line)).toEqual(["y"]);
    expect((await destroy(app, "preview", scope)).lines.map((l) => [l.id, l.result])).toEqual([
      ["y", "removed"],
    ]);
    expect((await lists(domain)).callbacks).toEqual([]);
  });

  it("a changed URL: the old one goes, the new one is created", async () => {
    const domain = freshAuth0Domain("url");
    await seed(domain);
    const scope = freshPr();
    await apply(app, "preview", scope, plan({ id: "x", op: "auth0.callbackUrl", url: url(scope) }, domain));
    const next = `${url(scope)}/v2`;
    const changed = await apply(
      app,
      "preview",
      scope,
      plan({ id: "x", op: "auth0.callbackUrl", url: next }, domain),
    );
    expect(changed.drift).toEqual([]);
    expect(changed.lines.map((l) => [l.key, l.result])).toEqual([
      [next, "created"],
      [url(scope), "removed"],
    ]);
    expect((await lists(domain)).callbacks).toEqual([next]);
    await destroy(app, "preview", scope);
    expect((await lists(domain)).callbacks).toEqual([]);
  });

  it("moved to another connection to the same tenant: the same item, recorded under its new connection", async () => {
    const domain = freshAuth0Domain("conn");
    await seed(domain);
    const second = registerConnection(`auth0-second-${domain}`, {
      type: "auth0",
      config: { domain, clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
    });
    const scope = freshPr();
    const x = url(scope);
    await apply(app, "preview", scope, plan({ id: "x", op: "auth0.callbackUrl", url: x }, domain));
    const writes = await providerWrites(domain);
    const moved = await apply(
      app,
      "preview",
      scope,
      plan({ id: "x", op: "auth0.callbackUrl", url: x, connection: second }, domain),
    );
    expect(moved.lines.map((l) => l.result)).toEqual(["unchanged"]);
    expect(await providerWrites(domain)).toBe(writes);
    expect((await receipt("preview", scope)).ledger.map((e) => e.connection)).toEqual([second]);
    await destroy(app, "preview", scope);
    expect((await lists(domain)).callbacks).toEqual([]);
  });

  it("two lines of one plan naming the same item are refused before anything is sent", async () => {
    const domain = freshAuth0Domain("dup");
    await seed(domain);
    const scope = freshPr();
    const one = plan({ id: "a", op: "auth0.callbackUrl", url: url(scope) }, domain);
    const twice: Plan = {
      version: 2,
      lines: [...one.lines, { ...(one.lines[0] as Plan["lines"][number]), id: "b" }],
    };
    const requests = (await emulatorStub(domain).stats()).requests;
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, { plan: twice });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe("VALIDATION");
    expect((await emulatorStub(domain).stats()).requests).toBe(requests);
  });
});

describe("receipts written when entries were keyed by line and key", () => {
  async function writeOld(scope: string, ledger: LedgerEntry[]) {
    await new R2ReceiptStore(env.RECEIPTS).write(
      {
        version: 1,
        repository: DEFAULT_REPOSITORY,
        environment: "preview",
        scope,
        revision: 1,
        ledger,
        intents: [],
        runs: [],
      },
      null,
    );
  }
  const entry = (domain: string, line: string, op: string, key: string): LedgerEntry => ({
    line,
    op,
    connection: auth0Connection(domain),
    params: { client: APP_CLIENT, url: key },
    key,
    parent: appIdentity(domain),
    runId: "run-old",
    createdAt: 1,
  });

  it("one item under two lines is one entry: re-applied unchanged as one line, destroyed once", async () => {
    const domain = freshAuth0Domain("old2");
    const scope = freshPr();
    const x = url(scope);
    await seed(domain);
    const first = await apply(
      app,
      "preview",
      scope,
      plan({ id: "a", op: "auth0.callbackUrl", url: x }, domain),
    );
    expect(first.lines[0]?.result).toBe("created");
    // As an older version could leave it: the same item recorded under lines a and b.
    const [kept] = (await receipt("preview", scope)).ledger;
    const store = new R2ReceiptStore(env.RECEIPTS);
    const { receipt: now, etag } = await store.read(scopeAddress("preview", scope));
    await store.write(
      { ...now, ledger: [kept as LedgerEntry, { ...(kept as LedgerEntry), line: "b" }] },
      etag,
    );

    const again = await apply(
      app,
      "preview",
      scope,
      plan({ id: "c", op: "auth0.callbackUrl", url: x }, domain),
    );
    expect(again.lines.map((l) => [l.id, l.result])).toEqual([["c", "unchanged"]]);
    expect((await receipt("preview", scope)).ledger.map((e) => e.line)).toEqual(["c"]);
    const destroyed = await destroy(app, "preview", scope);
    expect(destroyed.lines.map((l) => l.result)).toEqual(["removed"]);
    expect((await lists(domain)).callbacks).toEqual([]);
  });

  it("one line and URL under two ops are two items: destroy removes both", async () => {
    const domain = freshAuth0Domain("old1");
    const scope = freshPr();
    const x = url(scope);
    await seedAuth0Tenant(domain, {
      m2m: TEST_M2M,
      clients: {
        [APP_CLIENT]: { callbacks: [x], allowed_logout_urls: [], web_origins: [x], allowed_origins: [] },
      },
    });
    await writeOld(scope, [
      entry(domain, "x", "auth0.callbackUrl", x),
      entry(domain, "x", "auth0.webOrigin", x),
    ]);
    const destroyed = await destroy(app, "preview", scope);
    expect(destroyed.run.status).toBe("succeeded");
    expect(destroyed.lines.map((l) => [l.op, l.result]).sort()).toEqual([
      ["auth0.callbackUrl", "removed"],
      ["auth0.webOrigin", "removed"],
    ]);
    expect(await lists(domain)).toEqual({ callbacks: [], web_origins: [] });
  });
});
