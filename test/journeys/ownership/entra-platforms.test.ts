/**
 * Entra's platforms are lists of their own: the same URL in `web` and `spa` of one application is
 * two items (docs/adapters.md, "Microsoft Entra ID"), each owned, created and removed on its own.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { entraTenant } from "../../adapters/entra/entra-tenant";
import { connectionOf } from "../../helpers/connections";
import { graphApp } from "../../helpers/emulators-entra";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const X = "https://app.example.com/signin-oidc";
type Kind = "web" | "spa";

async function setup(lists: { web?: string[]; spa?: string[] }) {
  const t = await entraTenant(lists);
  const name = `entra-platforms-${crypto.randomUUID().slice(0, 8)}`;
  const secretName = `ENTRA_PLATFORMS_${crypto.randomUUID().slice(0, 8).toUpperCase()}`;
  const connection = connectionOf(name, {
    type: "entra",
    tenant: t.domain,
    clientId: t.clientId,
    clientSecret: { secret: secretName },
  });
  const plan = (...kinds: Kind[]): Plan => ({
    version: 2,
    lines: kinds.map((kind) => ({
      id: kind,
      op: "entra.redirectUri",
      connection,
      params: t.params(kind, X),
    })),
  });
  const engine = testEngine({ bindings: { [secretName]: t.secret } });
  const base = Math.floor(Math.random() * 1e6) * 100;
  const scopes = [`pr-${base + 1}`, `pr-${base + 2}`] as const;
  const req = (scope: string) => ({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    wait: true,
    waitTimeoutMs: 60_000,
  });
  const lists_ = async () => {
    const app = await graphApp(t.tenantId, t.application);
    return { web: app?.web.redirectUris ?? [], spa: app?.spa?.redirectUris ?? [] };
  };
  return { engine, plan, scopes, req, lists: lists_ };
}

describe("Entra: one URL in two platforms is two items", () => {
  it("a pre-existing web X and a scope's spa X: the spa one is created and destroyed, the web one stays", async () => {
    const { engine, plan, scopes, req, lists } = await setup({ web: [X] });
    const [a, b] = scopes;
    const ra = await engine.apply({ ...req(a), plan: plan("spa") });
    expect(ra.lines.map((l) => l.result)).toEqual(["created"]);
    // Another scope's web X is the pre-existing entry: it joins it as foreign, writes nothing.
    const rb = await engine.apply({ ...req(b), plan: plan("web") });
    expect(rb.lines.map((l) => l.result)).not.toContain("created");
    expect(await lists()).toEqual({ web: [X], spa: [X] });
    await engine.destroy(req(a));
    expect(await lists()).toEqual({ web: [X], spa: [] });
    await engine.destroy(req(b));
    expect(await lists()).toEqual({ web: [X], spa: [] });
  });

  it("one plan with the same URL in web and spa: both are created, and destroy takes both away", async () => {
    const { engine, plan, scopes, req, lists } = await setup({});
    const r = await engine.apply({ ...req(scopes[0]), plan: plan("web", "spa") });
    expect(r.run.status).toBe("succeeded");
    expect(r.lines.map((l) => l.result)).toEqual(["created", "created"]);
    expect(await lists()).toEqual({ web: [X], spa: [X] });
    await engine.destroy(req(scopes[0]));
    expect(await lists()).toEqual({ web: [], spa: [] });
  });

  it("the first look at a web line sees the spa list too: a pre-existing spa X is foreign, a later spa line keeps it", async () => {
    const { engine, plan, scopes, req, lists } = await setup({ spa: [X] });
    const [a, b] = scopes;
    await engine.apply({ ...req(a), plan: plan("web") });
    const rb = await engine.apply({ ...req(b), plan: plan("spa") });
    expect(rb.lines.map((l) => l.result)).not.toContain("created");
    await engine.destroy(req(b));
    await engine.destroy(req(a));
    expect(await lists()).toEqual({ web: [], spa: [X] });
  });
});
