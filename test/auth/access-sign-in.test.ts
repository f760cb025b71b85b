/**
 * Signing in with Cloudflare Access (docs/security.md, "Cloudflare Access"): an assertion from the
 * configured team, for the configured application, names an identity SPONSON_ACCESS maps to a role
 * (and repository); every route then treats it like a token of that role. Assertions signed by any
 * other key, for another audience, or expired are refused 401; an identity no rule names 403
 * `access.unmapped`. Every refusal happens before a provider request. The team's keys are served by
 * a local "team" through the injected fetch (there is no network in tests) and fetched once.
 */

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { call, observedApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { freshPr } from "../helpers/engine";

const TEAM = "https://acme.cloudflareaccess.com";
const AUD = "5d1a3f0c9e2b4a6c8d7e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c";
const ACCESS = JSON.stringify({
  teamDomain: TEAM,
  audience: AUD,
  identities: [
    { email: "root@acme.test", role: "admin" },
    { group: "sre", role: "admin" },
    { emailDomain: "acme.test", role: "viewer", repository: "Codertocat/Hello-World" },
  ],
});

interface TeamKey {
  privateKey: CryptoKey;
  kid: string;
  publicJwk: JWK;
}

async function teamKey(): Promise<TeamKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const exported = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(exported);
  return { privateKey, kid, publicJwk: { ...exported, kid, alg: "RS256", use: "sig" } };
}

let team: TeamKey;
let stranger: TeamKey;
const certFetches: string[] = [];

const accessFetch: typeof fetch = async (input) => {
  const url = new Request(input).url;
  certFetches.push(url);
  if (url !== `${TEAM}/cdn-cgi/access/certs`) return new Response("not found", { status: 404 });
  return Response.json({ keys: [team.publicJwk] });
};

const { app, hosts } = observedApp({ auth: { accessFetch } });

beforeAll(async () => {
  team = await teamKey();
  stranger = await teamKey();
});

/** An assertion shaped as Cloudflare's, with any claim overridable. */
async function assertion(email: string, claims: JWTPayload = {}, key: TeamKey = team): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    aud: [AUD],
    email,
    iss: TEAM,
    sub: crypto.randomUUID(),
    identity_nonce: "nonce-1",
    type: "app",
    iat: now,
    nbf: now,
    exp: now + 600,
    ...claims,
  })
    .setProtectedHeader({ alg: "RS256", kid: key.kid })
    .sign(key.privateKey);
}

const withAccess = (extra: Record<string, string> = {}) =>
  testEnv({ ...env, SPONSON_ACCESS: ACCESS, ...extra } as typeof env);

/** A request with no Authorization header (helpers/app's call adds an admin bearer). */
async function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  bindings = withAccess(),
): Promise<Response> {
  hosts.length = 0;
  const ctx = createExecutionContext();
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const res = await app.request(`http://sponson.test${path}`, init, bindings, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return new Response(text, { status: res.status, headers: res.headers });
}

async function asAccess(method: string, path: string, token: string, body?: unknown) {
  return send(method, path, { "cf-access-jwt-assertion": token, origin: "http://sponson.test" }, body);
}

async function problem(res: Response) {
  return (await res.json()) as { code?: string; reason?: string; rule?: string; detail?: string };
}

describe("Access identities act as the role SPONSON_ACCESS maps them to", () => {
  it("root@acme.test (an email rule) reads the audit trail as admin", async () => {
    const res = await asAccess("GET", "/v1/audit", await assertion("root@acme.test"));
    expect(res.status).toBe(200);
  });

  it("someone@acme.test (a domain rule) is a viewer bound to its repository: reads, only its repository's audit, no destroy", async () => {
    const token = await assertion("someone@acme.test");
    expect((await asAccess("GET", "/v1/scopes/preview/pr-1/ledger", token)).status).not.toBe(403);
    // The audit trail's slice of its own repository (docs/security.md, "Repository isolation").
    const audit = await asAccess("GET", "/v1/audit", token);
    expect(audit.status).toBe(200);
    const entries = ((await audit.json()) as { entries: Array<{ kind: string }> }).entries;
    expect(entries.filter((e) => e.kind === "token-revocation" || e.kind === "orphan-removal")).toEqual([]);
    const destroy = await asAccess("POST", `/v1/scopes/preview/${freshPr()}/destroy`, token, {});
    expect(destroy.status).toBe(403);
    expect(hosts).toEqual([]);
  });

  it("a member of the Access group sre (another domain) is admin", async () => {
    const res = await asAccess(
      "GET",
      "/v1/audit",
      await assertion("pat@contractor.test", { groups: ["sre"] }),
    );
    expect(res.status).toBe(200);
  });

  it("an admin signed in by Access mints an admin token, audited under its Access identity", async () => {
    const res = await asAccess("POST", "/v1/tokens", await assertion("root@acme.test"), {
      role: "admin",
      subject: "admin:break-glass",
      reason: "stuck lock at 3 a.m.",
      ttlSeconds: 600,
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const audit = (await (await call(app, "GET", "/v1/audit")).json()) as {
      entries: Array<Record<string, unknown>>;
    };
    expect(audit.entries).toContainEqual(
      expect.objectContaining({ kind: "token-mint", jti: id, actor: "access:root@acme.test" }),
    );
  });

  it("the team's keys are fetched once for many assertions", async () => {
    const before = certFetches.length;
    for (let i = 0; i < 3; i++) await asAccess("GET", "/v1/audit", await assertion("root@acme.test"));
    expect(certFetches.length - before).toBeLessThanOrEqual(1);
    expect(certFetches.every((u) => u === `${TEAM}/cdn-cgi/access/certs`)).toBe(true);
  });
});

describe("refused assertions (no provider request)", () => {
  async function expectRefused(token: string, status: number, field: "reason" | "rule", value: string) {
    const res = await asAccess("POST", `/v1/scopes/preview/${freshPr()}/destroy`, token, {});
    expect(res.status).toBe(status);
    expect((await problem(res))[field]).toBe(value);
    expect(hosts).toEqual([]);
  }

  it("signed by another key (its own kid): 401 unknown-key", async () => {
    await expectRefused(await assertion("root@acme.test", {}, stranger), 401, "reason", "unknown-key");
  });

  it("signed by another key under the team's kid: 401 signature", async () => {
    const forged = { ...stranger, kid: team.kid };
    await expectRefused(await assertion("root@acme.test", {}, forged), 401, "reason", "signature");
  });

  it("for another application's audience: 401 audience", async () => {
    await expectRefused(await assertion("root@acme.test", { aud: ["other-app"] }), 401, "reason", "audience");
  });

  it("expired: 401 expired", async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    const token = await assertion("root@acme.test", { iat: past - 600, nbf: past - 600, exp: past });
    await expectRefused(token, 401, "reason", "expired");
  });

  it("from another team (issuer): 401 issuer", async () => {
    const token = await assertion("root@acme.test", { iss: "https://evil.cloudflareaccess.com" });
    await expectRefused(token, 401, "reason", "issuer");
  });

  it("an identity no rule names: 403 access.unmapped, saying what to ask for", async () => {
    const res = await asAccess("GET", "/v1/audit", await assertion("mallory@elsewhere.test"));
    expect(res.status).toBe(403);
    const body = await problem(res);
    expect(body.rule).toBe("access.unmapped");
    expect(body.detail).toContain("SPONSON_ACCESS.identities");
  });

  it("without SPONSON_ACCESS, a valid-looking assertion is refused 401 issuer", async () => {
    const token = await assertion("root@acme.test");
    const res = await send("GET", "/v1/audit", { "cf-access-jwt-assertion": token }, undefined, testEnv(env));
    expect(res.status).toBe(401);
    expect((await problem(res)).reason).toBe("issuer");
  });

  it("a state-changing request from a foreign origin: 403 access.same-origin", async () => {
    const token = await assertion("root@acme.test");
    const headers = { "cf-access-jwt-assertion": token, origin: "https://evil.test" };
    const res = await send("POST", `/v1/scopes/preview/${freshPr()}/destroy`, headers, {});
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("access.same-origin");
    expect(hosts).toEqual([]);
  });
});
