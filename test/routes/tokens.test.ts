/**
 * POST /v1/tokens (admin): the service signs ci and viewer tokens with its own key, so the
 * production private key never has to leave it. A minted token is accepted within its claims,
 * every mint is audited in R2 (claims, never the token), and only an admin may mint.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TOKEN_AUDIT_PREFIX } from "../../workers/routes/tokens";
import { call, testApp } from "../helpers/app";
import { freshPr } from "../helpers/engine";
import { bearer } from "../helpers/tokens";

const app = testApp();

async function mint(body: object, as: Record<string, string> = {}) {
  const res = await call(app, "POST", "/v1/tokens", body, Object.keys(as).length ? as : {});
  return { res, body: (await res.json()) as { token: string; id: string; expiresAt: number; code?: string } };
}

describe("minting tokens on the service", () => {
  it("a ci token bound to preview scopes of one repository acts there and nowhere else", async () => {
    const { res, body } = await mint({
      role: "ci",
      subject: "ci:Codertocat/Hello-World",
      scopes: ["preview/*"],
      repository: "Codertocat/Hello-World",
      ttlSeconds: 3600,
    });
    expect(res.status).toBe(201);
    const auth = { authorization: `Bearer ${body.token}` };
    const scope = freshPr();
    const destroyed = await call(app, "POST", `/v1/scopes/preview/${scope}/destroy`, {}, auth);
    expect(destroyed.status).toBe(200);
    const staging = await call(app, "POST", `/v1/scopes/staging/${scope}/destroy`, {}, auth);
    expect(staging.status).toBe(403);
    const mintAgain = await call(
      app,
      "POST",
      "/v1/tokens",
      { role: "viewer", subject: "x", ttlSeconds: 60 },
      auth,
    );
    expect(mintAgain.status).toBe(403);
  });

  it("every mint is audited: who, for whom, what, until when — and not the token", async () => {
    const { body } = await mint({ role: "viewer", subject: "viewer:dashboard-wall", ttlSeconds: 600 });
    const listed = await env.RECEIPTS.list({ prefix: TOKEN_AUDIT_PREFIX });
    const key = listed.objects.map((o) => o.key).find((k) => k.endsWith(`-${body.id}.json`));
    expect(key).toBeDefined();
    const text = await (await env.RECEIPTS.get(key as string))?.text();
    expect(JSON.parse(text as string)).toMatchObject({
      id: body.id,
      subject: "viewer:dashboard-wall",
      role: "viewer",
      expiresAt: body.expiresAt,
      issuedBy: expect.any(String),
    });
    expect(text).not.toContain(body.token);
  });

  it("only an admin mints; admin tokens and over-long lifetimes are refused", async () => {
    const request = { role: "ci", subject: "ci:x", scopes: ["preview/*"], ttlSeconds: 3600 };
    expect((await mint(request, await bearer("viewer"))).res.status).toBe(403);
    expect((await mint(request, await bearer("ci", ["preview/*"]))).res.status).toBe(403);
    expect((await mint({ ...request, role: "admin" })).body.code).toBe("VALIDATION");
    expect((await mint({ ...request, ttlSeconds: 365 * 24 * 3600 })).body.code).toBe("VALIDATION");
    expect(
      (await mint({ role: "viewer", subject: "v", scopes: ["preview/*"], ttlSeconds: 60 })).body.code,
    ).toBe("VALIDATION");
  });
});
