/**
 * Service tokens (docs/security.md, "Service tokens"): a maximum lifetime per role, a `jti` deny list
 * an admin adds to, and with several repositories a ci token bound to one. Each refusal is made at
 * authentication: the tenant, the receipt and the lock stay as they were and no provider request
 * is sent.
 */
import { env } from "cloudflare:workers";
import { calculateJwkThumbprint, importJWK, type JWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { scopeLockKey } from "../../shared/lock-keys";
import { lockStub } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { browserRequest } from "../dashboard/session";
import { call, observedApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { bearer, mintServiceToken } from "../helpers/tokens";

const { app, hosts } = observedApp();
const DAY = 24 * 60 * 60;
const TWO_REPOSITORIES = JSON.stringify([DEFAULT_REPOSITORY, { name: "acme/api", id: 5151 }]);

async function applyWith(token: string, extra: Record<string, unknown> = {}) {
  const domain = freshAuth0Domain("tok");
  await seedTenant(domain);
  const scope = freshPr();
  // Shared on purpose: some tests configure a second repository (docs/design.md, "Objects belong to repositories").
  const plan = previewPlan(domain, "*");
  hosts.length = 0;
  const res = await call(
    app,
    "POST",
    `/v1/scopes/preview/${scope}/apply`,
    { plan },
    { authorization: `Bearer ${token}` },
    testEnv({ ...env, ...extra } as typeof env),
  );
  return { res, domain, scope };
}

async function expectRefused(
  token: string,
  status: number,
  field: "reason" | "rule",
  value: string,
  extra = {},
) {
  const { res, domain, scope } = await applyWith(token, extra);
  expect(res.status).toBe(status);
  expect(((await res.json()) as Record<string, unknown>)[field]).toBe(value);
  expect(hosts).toEqual([]);
  expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  const key = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
  expect((await lockStub(env, key).read({ key })).lastToken).toBe(0);
  const address = { repository: DEFAULT_REPOSITORY, environment: "preview", scope };
  expect((await new R2ReceiptStore(env.RECEIPTS).read(address)).etag).toBeNull();
}

describe("a maximum lifetime per role", () => {
  it("an admin token that lives two days is refused 401 lifetime (default: one day)", async () => {
    await expectRefused(
      await mintServiceToken({ role: "admin", ttlSeconds: 2 * DAY }),
      401,
      "reason",
      "lifetime",
    );
  });

  it("a ci token that lives 91 days is refused 401 lifetime (default: 90)", async () => {
    const token = await mintServiceToken({ role: "ci", scopes: ["*/*"], ttlSeconds: 91 * DAY });
    await expectRefused(token, 401, "reason", "lifetime");
  });

  it("SERVICE_TOKEN_MAX_LIFETIME_SECONDS lowers the limit: a one-hour admin token is refused under 600 s", async () => {
    const token = await mintServiceToken({ role: "admin", ttlSeconds: 3600 });
    await expectRefused(token, 401, "reason", "lifetime", {
      SERVICE_TOKEN_MAX_LIFETIME_SECONDS: '{"admin":600}',
    });
  });

  it("a service token without `iat` is refused 401 claims (its lifetime cannot be known)", async () => {
    const jwk = JSON.parse(env.SERVICE_SIGNING_KEY as string) as JWK;
    const kid = await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x } as JWK);
    const token = await new SignJWT({ role: "admin" })
      .setProtectedHeader({ alg: "EdDSA", kid })
      .setIssuer("sponson-edge")
      .setAudience("sponson-edge")
      .setSubject("no-iat")
      .setExpirationTime(Math.floor(Date.now() / 1000) + 300)
      .sign(await importJWK(jwk, "EdDSA"));
    await expectRefused(token, 401, "reason", "claims");
  });

  it("control: an admin token within a day applies", async () => {
    const { res } = await applyWith(await mintServiceToken({ role: "admin", ttlSeconds: DAY - 60 }));
    expect(res.status).toBe(200);
  });
});

describe("the jti deny list", () => {
  it("a revoked token is refused 401 revoked; it worked before; the list shows who revoked it and why", async () => {
    const jti = `ci-${crypto.randomUUID()}`;
    const token = await mintServiceToken({ role: "ci", scopes: ["preview/*"], jti });
    expect((await applyWith(token)).res.status).toBe(200);

    const revoke = await call(app, "POST", "/v1/tokens/revoked", { jti, reason: "leaked in a log" });
    expect(revoke.status).toBe(200);
    await expectRefused(token, 401, "reason", "revoked");

    const list = (await (await call(app, "GET", "/v1/tokens/revoked")).json()) as {
      revoked: Array<{ jti: string; reason: string; actor: string }>;
    };
    expect(list.revoked).toContainEqual(
      expect.objectContaining({ jti, reason: "leaked in a log", actor: "test-admin" }),
    );
  });

  it("a ci token may not add to the deny list: 403 role.admin, nothing recorded", async () => {
    const jti = `x-${crypto.randomUUID()}`;
    const res = await call(
      app,
      "POST",
      "/v1/tokens/revoked",
      { jti, reason: "r" },
      await bearer("ci", ["*/*"]),
    );
    expect(res.status).toBe(403);
    expect(((await res.json()) as { rule: string }).rule).toBe("role.admin");
    const list = (await (await call(app, "GET", "/v1/tokens/revoked")).json()) as {
      revoked: Array<{ jti: string }>;
    };
    expect(list.revoked.map((r) => r.jti)).not.toContain(jti);
  });

  it("a viewer may not read the deny list: 403 role.admin", async () => {
    const res = await call(app, "GET", "/v1/tokens/revoked", undefined, await bearer("viewer"));
    expect(res.status).toBe(403);
  });

  it("a revoked token does not sign in to the dashboard", async () => {
    const jti = `viewer-${crypto.randomUUID()}`;
    const token = await mintServiceToken({ role: "viewer", jti });
    expect((await call(app, "POST", "/v1/tokens/revoked", { jti, reason: "left the team" })).status).toBe(
      200,
    );
    const res = await browserRequest(app, "POST", "/dashboard/sign-in", { form: { token } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in?error=invalid");
  });
});

describe("with several repositories, a ci token names its own", () => {
  it("a ci token without `repository` is refused 403 service.repository-required", async () => {
    const token = await mintServiceToken({ role: "ci", scopes: ["*/*"] });
    await expectRefused(token, 403, "rule", "service.repository-required", {
      SPONSON_REPOSITORIES: TWO_REPOSITORIES,
    });
  });

  it("control: the same token bound to a repository applies there", async () => {
    const token = await mintServiceToken({
      role: "ci",
      scopes: ["*/*"],
      repository: DEFAULT_REPOSITORY.name,
    });
    const { res } = await applyWith(token, { SPONSON_REPOSITORIES: TWO_REPOSITORIES });
    expect(res.status).toBe(200);
  });
});
