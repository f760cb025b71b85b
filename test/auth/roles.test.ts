/**
 * Roles (docs/design.md, "Security model"): viewer reads, ci acts on the scopes its token covers, admin
 * force-releases.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { mintServiceToken, pullRequestClaims } from "../helpers/tokens";
import { type Harness, harness, problem, send } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await harness();
});

const emptyPlan = { plan: { version: 2, lines: [] } };
const lockKey = encodeURIComponent("scope:186853002/preview/pr-404");

describe("roles", () => {
  it("a viewer reads the held locks", async () => {
    const token = await mintServiceToken({ role: "viewer" });
    expect((await send(h.app, "GET", "/v1/locks", { token })).status).toBe(200);
  });

  it("a viewer calling apply is refused 403", async () => {
    const token = await mintServiceToken({ role: "viewer", scopes: ["*/*"] });
    const res = await send(h.app, "POST", "/v1/scopes/preview/pr-1/apply", { token, body: emptyPlan });
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("role.viewer");
  });

  it("a viewer reads a scope's ledger", async () => {
    const token = await mintServiceToken({ role: "viewer" });
    const res = await send(h.probe, "GET", "/v1/scopes/preview/pr-1/ledger", { token });
    expect(res.status).toBe(200);
  });

  it("a ci service token may not force-release a lock", async () => {
    const token = await mintServiceToken({ role: "ci", scopes: ["*/*"] });
    const res = await send(h.app, "DELETE", `/v1/locks/${lockKey}`, { token, body: { reason: "stuck" } });
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("role.admin");
  });

  it("a GitHub job may not force-release a lock", async () => {
    const token = await h.issuer.mint(pullRequestClaims(404));
    const res = await send(h.app, "DELETE", `/v1/locks/${lockKey}`, { token, body: { reason: "stuck" } });
    expect(res.status).toBe(403);
  });

  it("an admin force-releases a lock, recorded under the admin's subject", async () => {
    const token = await mintServiceToken({ role: "admin", sub: "ops-alice" });
    const res = await send(h.app, "DELETE", `/v1/locks/${lockKey}`, { token, body: { reason: "stuck" } });
    expect(res.status).toBe(200);
  });

  it("a ci service token whose scopes do not cover the request is refused", async () => {
    const token = await mintServiceToken({ role: "ci", scopes: ["preview/pr-1", "*/pr-2"] });
    const res = await send(h.app, "POST", "/v1/scopes/preview/pr-3/apply", { token, body: emptyPlan });
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("service.scopes");
  });

  it("a ci service token without scopes acts on nothing", async () => {
    const token = await mintServiceToken({ role: "ci" });
    const res = await send(h.app, "POST", "/v1/scopes/preview/pr-1/preview", { token, body: emptyPlan });
    expect(res.status).toBe(403);
  });

  it("a ci service token acts on the scopes its patterns cover", async () => {
    const token = await mintServiceToken({ role: "ci", scopes: ["preview/pr-1", "*/pr-2"] });
    expect((await send(h.probe, "POST", "/v1/scopes/preview/pr-1/apply", { token })).status).toBe(200);
    expect((await send(h.probe, "POST", "/v1/scopes/staging/pr-2/destroy", { token })).status).toBe(200);
    expect((await send(h.probe, "POST", "/v1/scopes/staging/pr-1/apply", { token })).status).toBe(403);
  });

  it("an admin acts on any scope", async () => {
    const token = await mintServiceToken({ role: "admin" });
    expect((await send(h.probe, "POST", "/v1/scopes/production/main/rollback", { token })).status).toBe(200);
  });

  it("a route missing from the table is admin-only for writes (fail closed)", async () => {
    const token = await mintServiceToken({ role: "ci", scopes: ["*/*"] });
    const res = await send(h.probe, "POST", "/v1/something-new", { token });
    expect(res.status).toBe(403);
  });

  it("liveness, the OpenAPI document and the webhook receiver need no token", async () => {
    expect((await send(h.app, "GET", "/healthz")).status).toBe(200);
    const doc = await send(h.app, "GET", "/v1/openapi.json");
    expect(doc.status).toBe(200);
    expect(await doc.json()).toMatchObject({ openapi: "3.1.0" });
    // Public means the path only: the same document is still refused a token to anything else.
    expect((await send(h.app, "GET", "/v1/locks")).status).toBe(401);
    const webhook = await send(h.probe, "POST", "/v1/webhooks/github");
    expect(webhook.status).toBe(200);
    expect(await webhook.json()).toMatchObject({ caller: null, actor: "anonymous" });
  });
});
