/**
 * Receipts written before parent identities were canonical (docs/upgrading.md, "One lock per
 * provider object"): a Keycloak connection whose host carries the default port was locked as
 * `keycloak:<host>:443:realm:…`, and its scopes' ledgers say so. This version locks the same client
 * as `keycloak:<host>:realm:…`. Nothing recorded under the old spelling is orphaned: the scope's own
 * apply still knows its entry (no create and remove of the same entry), and the first holder of the
 * canonical lock counts the old-spelled ledgers as owners, so a new scope sharing an entry joins it
 * as shared and the old scope's destroy leaves it in place.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { LedgerEntry } from "../../../shared/schemas/receipt";
import { R2ReceiptStore } from "../../../workers/receipts/r2-receipt-store";
import { CLIENT, keycloakRealm, REALM } from "../../adapters/keycloak/keycloak-realm";
import { connectionOf } from "../../helpers/connections";
import { freshPr, receipt } from "../../helpers/engine";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const SECRET = "LEGACY_SPELLING_KEYCLOAK_SECRET";
const SHARED = "https://shared.example.com/callback";
let n = 0;

/** A Keycloak server, a connection spelling its host with the default port, and a plan for `url`. */
async function serverWithPortSpelling(existing: string[]) {
  const k = await keycloakRealm({ redirectUris: existing });
  n += 1;
  const host = `${k.host}:443`;
  const connection = connectionOf(`legacy-spelling-${n}`, {
    type: "keycloak",
    host,
    realm: REALM,
    clientId: "sponson",
    clientSecret: { secret: SECRET },
  });
  const plan = (url: string): Plan => ({
    version: 2,
    lines: [{ id: "cb", op: "keycloak.redirectUri", connection, params: { client: CLIENT, url } }],
  });
  const engine = testEngine({ bindings: { [SECRET]: k.secret } });
  const at = (scope: string) => ({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    wait: true,
  });
  return {
    k,
    connection,
    apply: (scope: string, url: string) => engine.apply({ ...at(scope), plan: plan(url) }),
    destroy: (scope: string) => engine.destroy(at(scope)),
    plan,
    /** The identity an earlier version gave the client: the host as written, port included. */
    oldIdentity: `keycloak:${host}:realm:${REALM}:client:${CLIENT}`,
    uris: async () => (await k.record())?.rep.redirectUris ?? [],
  };
}

/** What an earlier version left: `scope`'s ledger holding `url` under the old spelling. */
async function oldReceipt(scope: string, connection: string, oldIdentity: string, url: string) {
  const entry: LedgerEntry = {
    line: "cb",
    op: "keycloak.redirectUri",
    connection,
    params: { client: CLIENT, url },
    key: url,
    parent: oldIdentity,
    runId: "run-before-canonical-identities",
    createdAt: 1,
  };
  await new R2ReceiptStore(env.RECEIPTS).write(
    {
      version: 1,
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      revision: 1,
      ledger: [entry],
      intents: [],
      runs: [],
    },
    null,
  );
}

describe("ledgers that name a host with its default port", () => {
  it("the scope applies its plan again: its entry is unchanged, neither created nor removed", async () => {
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const s = await serverWithPortSpelling([url]);
    await oldReceipt(scope, s.connection, s.oldIdentity, url);

    const again = await s.apply(scope, url);
    expect(again.run.status).toBe("succeeded");
    expect(again.lines).toEqual([expect.objectContaining({ diff: "unchanged", result: "unchanged" })]);
    expect(await s.uris()).toEqual([url]);
    expect((await receipt("preview", scope)).ledger.map((e) => e.key)).toEqual([url]);
  });

  it("a new scope shares the old scope's entry; the old scope's destroy leaves it, the last owner's removes it", async () => {
    const [older, newer] = [freshPr(), freshPr()];
    const s = await serverWithPortSpelling([SHARED]);
    await oldReceipt(older, s.connection, s.oldIdentity, SHARED);

    expect((await s.apply(newer, SHARED)).lines[0]?.result).toBe("shared");
    expect((await s.destroy(older)).lines[0]?.result).toBe("released");
    expect(await s.uris()).toEqual([SHARED]);
    expect((await s.destroy(newer)).lines[0]?.result).toBe("removed");
    expect(await s.uris()).toEqual([]);
  });
});
