/**
 * Who may mint an admin token and whose tokens a token may revoke (docs/security.md, "Admin tokens
 * come from people"). A person — an admin signed in with Cloudflare Access, or a token signed with
 * the service key itself (`npm run token`, keygen's) — mints any role and revokes any token. A
 * token minted on the service mints ci and viewer tokens only, and revokes only itself and the
 * tokens it minted: so a leaked admin token can neither outlive itself by minting the next one nor
 * lock out the people who would revoke it.
 */
import { env } from "cloudflare:workers";
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { listRevokedTokens } from "../../workers/auth/revoked-tokens";
import { TOKEN_AUDIT_PREFIX } from "../../workers/routes/tokens";
import { call, testApp } from "../helpers/app";
import { mintServiceToken } from "../helpers/tokens";

const app = testApp();

interface Minted {
  token: string;
  id: string;
  code?: string;
  rule?: string;
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const adminBody = (subject: string) => ({ role: "admin", subject, reason: "on-call", ttlSeconds: 3600 });
const ciBody = { role: "ci", subject: "ci:acme/web", scopes: ["preview/*"], ttlSeconds: 3600 };

/** POST /v1/tokens as `as` (a test admin signed with the key when absent). */
async function mint(body: object, as?: string) {
  const res = await call(app, "POST", "/v1/tokens", body, as ? auth(as) : {});
  return { status: res.status, body: (await res.json()) as Minted };
}

async function revoke(jti: string, as: string) {
  const res = await call(app, "POST", "/v1/tokens/revoked", { jti, reason: "test" }, auth(as));
  return { status: res.status, body: (await res.json()) as { code?: string; rule?: string } };
}

const mintRecords = async () =>
  (await env.RECEIPTS.list({ prefix: TOKEN_AUDIT_PREFIX })).objects.map((o) => o.key);
const revoked = async (jti: string) => (await listRevokedTokens(env.RECEIPTS)).some((r) => r.jti === jti);

/** An admin token minted on the service by the key-signed test admin. */
async function mintedAdmin(subject = "admin:on-call"): Promise<Minted> {
  const minted = await mint(adminBody(subject));
  expect(minted.status).toBe(201);
  return minted.body;
}

describe("admin tokens are minted by people", () => {
  it("an admin token minted on the service is refused 403 when it mints the next admin token; nothing audited", async () => {
    const first = await mintedAdmin();
    const before = await mintRecords();
    const next = await mint(adminBody("admin:forever"), first.token);
    expect(next.status).toBe(403);
    expect(next.body).toMatchObject({ code: "FORBIDDEN", rule: "token.admin-mint" });
    expect(next.body.token).toBeUndefined();
    expect(await mintRecords()).toEqual(before);
  });

  it("control: the same token mints ci and viewer tokens", async () => {
    const admin = await mintedAdmin();
    expect((await mint(ciBody, admin.token)).status).toBe(201);
    expect(
      (await mint({ role: "viewer", subject: "viewer:wall", ttlSeconds: 600 }, admin.token)).status,
    ).toBe(201);
  });

  it("control: a token signed with the service key (a person's) mints an admin token", async () => {
    const root = await mintServiceToken({ role: "admin", sub: "ops-alice", jti: crypto.randomUUID() });
    expect((await mint(adminBody("admin:bob"), root)).status).toBe(201);
  });

  it("a minted token says who minted it, and its mint record names the minting token", async () => {
    const admin = await mintedAdmin();
    const ci = await mint(ciBody, admin.token);
    expect(decodeJwt(ci.body.token)).toMatchObject({ mintedBy: "admin:on-call" });
    const key = (await mintRecords()).find((k) => k.endsWith(`-${ci.body.id}.json`)) as string;
    const record = (await (await env.RECEIPTS.get(key))?.json()) as Record<string, unknown>;
    expect(record).toMatchObject({ issuedBy: "admin:on-call", issuedByToken: admin.id });
  });
});

describe("whose tokens a token may revoke", () => {
  it("an admin token minted on the service is refused 403 revoking another admin's token; it stays valid", async () => {
    const mallory = await mintedAdmin("admin:mallory");
    const alice = await mintedAdmin("admin:alice");
    const refused = await revoke(alice.id, mallory.token);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "FORBIDDEN", rule: "token.revoke" });
    expect(await revoked(alice.id)).toBe(false);
    const root = await mintServiceToken({ role: "admin", sub: "ops-root", jti: crypto.randomUUID() });
    const rootRefused = await revoke(decodeJwt(root).jti as string, mallory.token);
    expect(rootRefused.status).toBe(403);
    const still = await call(app, "GET", "/v1/audit", undefined, auth(alice.token));
    expect(still.status).toBe(200);
  });

  it("control: it revokes a token it minted, and itself", async () => {
    const admin = await mintedAdmin();
    const ci = await mint(ciBody, admin.token);
    expect((await revoke(ci.body.id, admin.token)).status).toBe(200);
    expect(await revoked(ci.body.id)).toBe(true);
    expect((await revoke(admin.id, admin.token)).status).toBe(200);
    expect(await revoked(admin.id)).toBe(true);
  });

  it("a ci token another token minted is not its to revoke", async () => {
    const one = await mintedAdmin("admin:one");
    const other = await mintedAdmin("admin:other");
    const ci = await mint(ciBody, other.token);
    expect((await revoke(ci.body.id, one.token)).status).toBe(403);
    expect(await revoked(ci.body.id)).toBe(false);
  });

  it("control: a person (a token signed with the key) revokes any admin's token", async () => {
    const admin = await mintedAdmin();
    const root = await mintServiceToken({ role: "admin", sub: "ops-root", jti: crypto.randomUUID() });
    expect((await revoke(admin.id, root)).status).toBe(200);
    expect(await revoked(admin.id)).toBe(true);
  });
});
