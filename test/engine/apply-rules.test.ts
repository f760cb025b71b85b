import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { lockStub } from "../../workers/locks/lock-target";
import { apply, call, testApp } from "../helpers/app";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { appLockKey, freshPr, providerWrites, receipt } from "../helpers/engine";
import { APP_CLIENT, auth0Plan, previewPlan, seedTenant, TEST_M2M } from "../helpers/plans";

const app = testApp();

describe("apply", () => {
  it("creates each line's entry under the application's lock and records it in the ledger with its parent", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain, { callbacks: ["https://app.example.com/callback"] });
    const scope = freshPr();
    const result = await apply(app, "preview", scope, previewPlan(domain));
    expect(result.run.status).toBe("succeeded");
    expect(result.lines.map((l) => [l.id, l.diff, l.result])).toEqual([
      ["callback", "create", "created"],
      ["logout", "create", "created"],
      ["origin", "create", "created"],
    ]);
    const client = await auth0Client(domain, APP_CLIENT);
    expect(client?.callbacks).toEqual([
      "https://app.example.com/callback",
      `https://${scope}.preview.example.com/callback`,
    ]);
    const stored = await receipt("preview", scope);
    expect(stored.ledger.map((e) => e.parent)).toEqual(Array(3).fill(`auth0:${domain}:client:${APP_CLIENT}`));
    expect(stored.ledger.every((e) => e.runId === result.run.id)).toBe(true);
    expect(stored.intents).toEqual([]);
  });

  it("re-applying an unchanged plan takes no lock and writes nothing", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    await apply(app, "preview", scope, previewPlan(domain));
    const key = await appLockKey(domain);
    const tokenBefore = (await lockStub(env, key).read({ key })).lastToken;
    const writesBefore = await providerWrites(domain);
    const again = await apply(app, "preview", scope, previewPlan(domain));
    expect(again.lines.map((l) => l.result)).toEqual(["unchanged", "unchanged", "unchanged"]);
    expect((await lockStub(env, key).read({ key })).lastToken).toBe(tokenBefore);
    expect(await providerWrites(domain)).toBe(writesBefore);
  });

  it("reports an entry removed behind its back as missing drift and recreates it", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    await apply(app, "preview", scope, previewPlan(domain));
    const before = await auth0Client(domain, APP_CLIENT);
    await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { ...before, callbacks: [] } } });
    const result = await apply(app, "preview", scope, previewPlan(domain));
    expect(result.drift).toEqual([
      expect.objectContaining({
        line: "callback",
        kind: "missing",
        key: `https://${scope}.preview.example.com/callback`,
      }),
    ]);
    expect(result.lines[0]).toMatchObject({ id: "callback", diff: "create", result: "created" });
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([
      `https://${scope}.preview.example.com/callback`,
    ]);
  });

  it("removes, under the recorded lock, an entry whose line left the plan", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    await apply(app, "preview", scope, previewPlan(domain));
    const smaller = previewPlan(domain);
    smaller.lines = smaller.lines.filter((l) => l.id !== "logout");
    const result = await apply(app, "preview", scope, smaller);
    expect(result.lines.find((l) => l.id === "logout")).toMatchObject({ diff: "delete", result: "removed" });
    expect((await auth0Client(domain, APP_CLIENT))?.allowed_logout_urls).toEqual([]);
    expect((await receipt("preview", scope)).ledger.map((e) => e.line).sort()).toEqual([
      "callback",
      "origin",
    ]);
  });

  it("keeps owning an entry when its line is renamed, instead of removing and re-adding it", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    await apply(app, "preview", scope, previewPlan(domain));
    const renamed = previewPlan(domain);
    renamed.lines = renamed.lines.map((l) => (l.id === "callback" ? { ...l, id: "login-callback" } : l));
    const writes = await providerWrites(domain);
    const result = await apply(app, "preview", scope, renamed);
    expect(result.lines.map((l) => l.result)).toEqual(["unchanged", "unchanged", "unchanged"]);
    expect(await providerWrites(domain)).toBe(writes);
    expect((await receipt("preview", scope)).ledger.map((e) => e.line).sort()).toEqual([
      "login-callback",
      "logout",
      "origin",
    ]);
  });

  it("preview reports the diff and writes nothing", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/preview`, { plan: previewPlan(domain) });
    expect(res.status).toBe(200);
    const result = (await res.json()) as { lines: Array<{ result: string }> };
    expect(result.lines.map((l) => l.result)).toEqual(["would-create", "would-create", "would-create"]);
    expect(await providerWrites(domain)).toBe(0);
    expect((await receipt("preview", scope)).ledger).toEqual([]);
  });

  it("placeholders resolve per scope; {pr} on a branch scope is refused before anything runs", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const plan = auth0Plan(domain, [
      { id: "cb", op: "auth0.callbackUrl", url: "https://pr-{pr}.{environment}.example.com/cb" },
    ]);
    const ok = await apply(app, "preview", "pr-4242", plan);
    expect(ok.lines[0]?.key).toBe("https://pr-4242.preview.example.com/cb");
    const res = await call(app, "POST", "/v1/scopes/preview/branch-feature/apply", { plan });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "VALIDATION" });
  });
});
