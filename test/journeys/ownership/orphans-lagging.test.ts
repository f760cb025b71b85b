/**
 * An admin's orphan removal on a provider that forgets writes (Entra; docs/design.md, "Providers
 * that forget a write") reads with the parent lock's recent writes merged, like every write under
 * that lease, and has the lock remember its removal: another scope's recent add that the lagging
 * read does not show survives it, and the removed entry is not put back by a later merged read.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { receiptKey } from "../../../workers/receipts/layout";
import { entraTenant } from "../../adapters/entra/entra-tenant";
import { connectionOf } from "../../helpers/connections";
import { graphApp, setGraphLag } from "../../helpers/emulators-entra";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

afterEach(async () => {
  await setGraphLag(0);
});

describe("orphan removal on a lagging Entra application", () => {
  it("keeps another scope's recent add, and the removed orphan does not come back", async () => {
    const t = await entraTenant({ web: [] });
    const secretName = `ORPHAN_LAG_SECRET_${crypto.randomUUID().slice(0, 8).toUpperCase()}`;
    const connection = connectionOf(`orphan-lag-${crypto.randomUUID().slice(0, 8)}`, {
      type: "entra",
      tenant: t.domain,
      clientId: t.clientId,
      clientSecret: { secret: secretName },
    });
    const plan = (url: string): Plan => ({
      version: 2,
      lines: [{ id: "web", op: "entra.redirectUri", connection, params: t.params("web", url) }],
    });
    const engine = testEngine({ bindings: { [secretName]: t.secret } });
    const base = Math.floor(Math.random() * 1e6) * 100;
    const [lost, a, b] = [`pr-${base + 1}`, `pr-${base + 2}`, `pr-${base + 3}`];
    const req = (scope: string) => ({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      wait: true,
      waitTimeoutMs: 60_000,
    });
    const url = (scope: string) => `https://${scope}.preview.example.com/signin-oidc`;
    expect((await engine.apply({ ...req(lost), plan: plan(url(lost)) })).lines[0]?.result).toBe("created");
    // Its receipt is lost: the entry is an orphan (its owner's ledger no longer records it).
    const key = receiptKey(DEFAULT_REPOSITORY.id, "preview", lost);
    const stored = (await (await env.RECEIPTS.get(key))?.json()) as { ledger: { parent: string }[] };
    const parent = stored.ledger[0]?.parent as string;
    await env.RECEIPTS.delete(key);
    // From here on Graph's reads lag behind its writes.
    await setGraphLag(600_000);
    expect((await engine.apply({ ...req(a), plan: plan(url(a)) })).lines[0]?.result).toBe("created");
    const removal = await engine.removeOrphan({
      parent,
      op: "entra.redirectUri",
      key: `web:${url(lost)}`,
      reason: "its receipt was lost",
      actor: "admin",
    });
    expect(removal.outcome).toBe("removed");
    expect((await graphApp(t.tenantId, t.application))?.web.redirectUris).toEqual([url(a)]);
    // A later write under the lease merges what the lock remembers: the removal, not the old add.
    expect((await engine.apply({ ...req(b), plan: plan(url(b)) })).lines[0]?.result).toBe("created");
    expect((await graphApp(t.tenantId, t.application))?.web.redirectUris).toEqual([url(a), url(b)]);
  });
});
