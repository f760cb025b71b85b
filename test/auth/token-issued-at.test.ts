/**
 * A service token's lifetime is measured from when the service sees it, not from the `iat` the
 * token claims for itself (docs/security.md, "Service tokens"): a ten-year admin token whose `iat`
 * is set a minute before its `exp` is refused, and so is any token issued ahead of now beyond the
 * clock skew. Refusals happen at authentication, before any provider request.
 */
import { env } from "cloudflare:workers";
import { calculateJwkThumbprint, importJWK, type JWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { call, observedApp } from "../helpers/app";

const { app, hosts } = observedApp();
const YEAR = 365 * 24 * 60 * 60;

/** An admin token with `iat` and `exp` chosen by the test, signed with the service's test key. */
async function adminToken(issuedAt: number, expiresAt: number): Promise<string> {
  const jwk = JSON.parse(env.SERVICE_SIGNING_KEY as string) as JWK;
  const kid = await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x } as JWK);
  return new SignJWT({ role: "admin" })
    .setProtectedHeader({ alg: "EdDSA", kid })
    .setIssuer("sponson-edge")
    .setAudience("sponson-edge")
    .setSubject("forged-lifetime")
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(await importJWK(jwk, "EdDSA"));
}

async function auditWith(token: string) {
  hosts.length = 0;
  const res = await call(app, "GET", "/v1/audit", undefined, { authorization: `Bearer ${token}` });
  return { status: res.status, body: (await res.json()) as { reason?: string } };
}

describe("token lifetime from the time the service verifies it", () => {
  it("a ten-year admin token with iat = exp − 60 is refused 401 lifetime", async () => {
    const exp = Math.floor(Date.now() / 1000) + 10 * YEAR;
    const { status, body } = await auditWith(await adminToken(exp - 60, exp));
    expect(status).toBe(401);
    expect(body.reason).toBe("lifetime");
    expect(hosts).toEqual([]);
  });

  it("a short token issued an hour ahead of now is refused 401 lifetime", async () => {
    const iat = Math.floor(Date.now() / 1000) + 3600;
    const { status, body } = await auditWith(await adminToken(iat, iat + 60));
    expect(status).toBe(401);
    expect(body.reason).toBe("lifetime");
  });

  it("control: a token issued ten seconds ahead (clock skew) within its lifetime is accepted", async () => {
    const iat = Math.floor(Date.now() / 1000) + 10;
    const { status } = await auditWith(await adminToken(iat, iat + 600));
    expect(status).toBe(200);
  });
});
