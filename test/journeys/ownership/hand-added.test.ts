/**
 * Hand-added entries stay an admin's (docs/design.md, "Ownership of shared entries"): an entry a person
 * added after the service first looked at the list is present and unowned; a scope whose plan names
 * it joins it as foreign, so that scope's destroy and rollback leave it where it is. Until some scope
 * names it, the orphan report lists it and only an admin removes it. Controls: an entry a scope
 * created and another joined is still removed by the last owner, and an entry a scope created is
 * still removed by its destroy.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { OrphanList } from "../../../shared/schemas/orphans";
import { apply, call, destroy, testApp } from "../../helpers/app";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { appIdentity, freshPr, receipt } from "../../helpers/engine";
import { APP_CLIENT, auth0Plan, seedTenant, TEST_M2M } from "../../helpers/plans";
import { bearer } from "../../helpers/tokens";

const app = testApp();
const HAND = "https://demo.example.com/callback";
const OWN = "https://{scope}.preview.example.com/callback";

const callbacks = async (domain: string) => (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
const addByHand = async (domain: string, url: string) =>
  seedAuth0Tenant(domain, {
    m2m: TEST_M2M,
    clients: { [APP_CLIENT]: { callbacks: [...(await callbacks(domain)), url] } },
  });
const handPlan = (domain: string) => auth0Plan(domain, [{ id: "demo", op: "auth0.callbackUrl", url: HAND }]);
const ownPlan = (domain: string) => auth0Plan(domain, [{ id: "cb", op: "auth0.callbackUrl", url: OWN }]);

async function orphansOn(domain: string): Promise<string[]> {
  const res = await call(app, "GET", "/v1/orphans", undefined, await bearer("admin"), env);
  const body = (await res.json()) as OrphanList;
  return body.orphans.filter((o) => o.parent === appIdentity(domain)).map((o) => o.key);
}

/** A tenant whose list the service has looked at (a scope wrote there), then a person added HAND. */
async function tenantWithHandAddedEntry() {
  const domain = freshAuth0Domain("hand");
  await seedTenant(domain);
  const first = freshPr();
  await apply(app, "preview", first, ownPlan(domain));
  await addByHand(domain, HAND);
  return domain;
}

describe("an entry added by hand after the first look", () => {
  it("is an orphan until a scope names it; the scope joins it as foreign and its destroy leaves it", async () => {
    const domain = await tenantWithHandAddedEntry();
    expect(await orphansOn(domain)).toContain(HAND);

    const scope = freshPr();
    const applied = await apply(app, "preview", scope, handPlan(domain));
    expect(applied.lines[0]).toMatchObject({ diff: "unchanged", result: "foreign" });
    expect((await receipt("preview", scope))?.ledger[0]?.holding).toBe("foreign");

    expect((await destroy(app, "preview", scope)).lines[0]?.result).toBe("released");
    expect(await callbacks(domain)).toContain(HAND);
  });

  it("a scope that joined it and rolls back leaves it too", async () => {
    const domain = await tenantWithHandAddedEntry();
    const scope = freshPr();
    await apply(app, "preview", scope, handPlan(domain));
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/rollback`, {});
    expect(res.status).toBe(200);
    expect(await callbacks(domain)).toContain(HAND);
  });

  it("two scopes that joined it both leave it in place", async () => {
    const domain = await tenantWithHandAddedEntry();
    const [a, b] = [freshPr(), freshPr()];
    await apply(app, "preview", a, handPlan(domain));
    expect((await apply(app, "preview", b, handPlan(domain))).lines[0]?.result).toBe("shared");
    await destroy(app, "preview", a);
    await destroy(app, "preview", b);
    expect(await callbacks(domain)).toContain(HAND);
  });
});

describe("controls: what scopes create is still theirs to remove", () => {
  it("an entry one scope created and another joined is removed by the last owner's destroy", async () => {
    const domain = freshAuth0Domain("handctl");
    await seedTenant(domain);
    const [creator, joiner] = [freshPr(), freshPr()];
    const shared = "https://shared.preview.example.com/callback";
    const plan = auth0Plan(domain, [{ id: "s", op: "auth0.callbackUrl", url: shared }]);
    expect((await apply(app, "preview", creator, plan)).lines[0]?.result).toBe("created");
    expect((await apply(app, "preview", joiner, plan)).lines[0]?.result).toBe("shared");
    await destroy(app, "preview", creator);
    expect(await callbacks(domain)).toContain(shared);
    await destroy(app, "preview", joiner);
    expect(await callbacks(domain)).not.toContain(shared);
  });

  it("an entry a scope created is removed by its destroy", async () => {
    const domain = freshAuth0Domain("handctl2");
    await seedTenant(domain);
    const scope = freshPr();
    await apply(app, "preview", scope, ownPlan(domain));
    await destroy(app, "preview", scope);
    expect(await callbacks(domain)).not.toContain(`https://${scope}.preview.example.com/callback`);
  });
});
