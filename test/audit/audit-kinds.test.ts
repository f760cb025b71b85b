/**
 * The admin audit trail (docs/storage.md, "Audit trail"): token revocations and refused webhook
 * deliveries are listed by GET /v1/audit beside force-releases and orphan removals, and a token
 * revoked twice keeps who revoked it first.
 */
import { describe, expect, it } from "vitest";
import { call, observedApp } from "../helpers/app";
import { mintServiceToken } from "../helpers/tokens";
import { freshPullRequest, pullRequestPayload, webhookReceiver } from "../webhooks/github-delivery";

const { app } = observedApp();

async function asAdmin(sub: string) {
  return { authorization: `Bearer ${await mintServiceToken({ role: "admin", sub })}` };
}

async function auditEntries(): Promise<Array<Record<string, unknown>>> {
  const res = await call(app, "GET", "/v1/audit");
  expect(res.status).toBe(200);
  return ((await res.json()) as { entries: Array<Record<string, unknown>> }).entries;
}

describe("token revocations in the audit trail", () => {
  it("revoking a jti twice keeps the first revoker and reason; the second answers the first record", async () => {
    const jti = `twice-${crypto.randomUUID()}`;
    const first = await call(
      app,
      "POST",
      "/v1/tokens/revoked",
      { jti, reason: "leaked" },
      await asAdmin("alice"),
    );
    expect(first.status).toBe(200);
    const second = await call(
      app,
      "POST",
      "/v1/tokens/revoked",
      { jti, reason: "cover-up" },
      await asAdmin("mallory"),
    );
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ jti, reason: "leaked", actor: "alice" });
    const list = (await (await call(app, "GET", "/v1/tokens/revoked")).json()) as {
      revoked: Array<{ jti: string; actor: string; reason: string }>;
    };
    expect(list.revoked.filter((r) => r.jti === jti)).toEqual([
      expect.objectContaining({ actor: "alice", reason: "leaked" }),
    ]);
  });

  it("GET /v1/audit lists a revocation as kind token-revocation with who, why and when", async () => {
    const jti = `listed-${crypto.randomUUID()}`;
    await call(app, "POST", "/v1/tokens/revoked", { jti, reason: "left the team" }, await asAdmin("bob"));
    expect(await auditEntries()).toContainEqual(
      expect.objectContaining({ kind: "token-revocation", jti, actor: "bob", reason: "left the team" }),
    );
  });
});

describe("refused webhook deliveries in the audit trail", () => {
  it("a delivery refused for a revision far ahead of the clock is listed as kind webhook-refused", async () => {
    const receiver = webhookReceiver();
    const pr = freshPullRequest();
    const deliveryId = crypto.randomUUID();
    const body = JSON.stringify(pullRequestPayload("closed", pr, "2099-01-01T00:00:00Z"));
    const res = await receiver.deliver({ body, deliveryId });
    expect(res.status).toBe(400);
    expect(await auditEntries()).toContainEqual(
      expect.objectContaining({
        kind: "webhook-refused",
        delivery: deliveryId,
        rule: "webhook.future-revision",
        scope: `pr-${pr}`,
      }),
    );
  });
});
