/**
 * A run that crashed after saving a create intent and before its claim wrote nothing (every write
 * of ours takes its ownership first, docs/design.md, "Ownership of shared entries"): resolving
 * that intent must not take away an entry someone else put there — one added by hand after the
 * first look, or one there before any scope (which the upgrade rebuild must not count as ours).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Intent } from "../../../shared/schemas/receipt";
import { R2ReceiptStore } from "../../../workers/receipts/r2-receipt-store";
import { apply, destroy, testApp } from "../../helpers/app";
import { auth0Client, freshAuth0Domain } from "../../helpers/emulators";
import { appIdentity, freshPr } from "../../helpers/engine";
import { APP_CLIENT, auth0Connection, auth0Plan, seedTenant } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

const app = testApp();
const callbacks = async (domain: string) => (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];

/** A receipt whose only trace is a create intent of `url` from a run of this version that crashed before its claim. */
function crashedBeforeClaim(domain: string, scope: string, url: string) {
  const intent: Intent = {
    action: "create",
    line: "cb",
    op: "auth0.callbackUrl",
    connection: auth0Connection(domain),
    params: { client: APP_CLIENT, url },
    key: url,
    parent: appIdentity(domain),
    runId: "run-crashed-before-claim",
    at: 1,
    claims: true,
  };
  return new R2ReceiptStore(env.RECEIPTS).write(
    {
      version: 1,
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      revision: 1,
      ledger: [],
      intents: [intent],
      runs: [],
    },
    null,
  );
}

describe("a create intent left before its claim", () => {
  it("an entry added by hand after the first look survives the intent's recovery", async () => {
    const domain = freshAuth0Domain();
    const own = "https://own.preview.example.com/cb";
    const hand = "https://hand-added.example.com/cb";
    await seedTenant(domain);
    const a = freshPr();
    const ra = await apply(
      app,
      "preview",
      a,
      auth0Plan(domain, [{ id: "o", op: "auth0.callbackUrl", url: own }]),
    );
    expect(ra.lines[0]?.result).toBe("created");
    // A person adds `hand` after the service's first look; then a crashed run's intent names it.
    await seedTenant(domain, { callbacks: [own, hand] });
    const b = freshPr();
    await crashedBeforeClaim(domain, b, hand);
    await destroy(app, "preview", b);
    expect(await callbacks(domain)).toContain(hand);
    // Control: the scope that owns its entry still removes it.
    await destroy(app, "preview", a);
    expect(await callbacks(domain)).toEqual([hand]);
  });

  it("on an object no scope looked at yet, a pre-existing entry stays foreign and is never removed", async () => {
    const domain = freshAuth0Domain();
    const pre = "https://production.example.com/cb";
    await seedTenant(domain, { callbacks: [pre] });
    const b = freshPr();
    await crashedBeforeClaim(domain, b, pre);
    await destroy(app, "preview", b);
    expect(await callbacks(domain)).toEqual([pre]);
    // A scope that names it later joins it as foreign; its destroy keeps it.
    const c = freshPr();
    const rc = await apply(
      app,
      "preview",
      c,
      auth0Plan(domain, [{ id: "p", op: "auth0.callbackUrl", url: pre }]),
    );
    expect(rc.lines[0]?.result).not.toBe("created");
    await destroy(app, "preview", c);
    expect(await callbacks(domain)).toEqual([pre]);
  });
});
