/**
 * docs/design.md, "Security model": every token is verified with issuer, audience, lifetime, key and
 * algorithm pinned. Each refusal is its own test and asserts the reason, so a token refused for the wrong
 * reason fails.
 */
import { base64url, SignJWT, UnsecuredJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { mintServiceToken, newServiceSigningKey, pullRequestClaims } from "../helpers/tokens";
import { type Harness, harness, problem, securityEnv, send } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await harness();
});

async function refusedWith(res: Response, reason: string): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = await problem(res);
  expect(body.code).toBe("UNAUTHENTICATED");
  expect(body.reason).toBe(reason);
}

describe("tokens the service refuses", () => {
  it("a request without a token is refused 401", async () => {
    await refusedWith(await send(h.app, "GET", "/v1/locks"), "missing");
  });

  it("an Authorization header that is not `Bearer <jwt>` is refused", async () => {
    await refusedWith(
      await send(h.app, "GET", "/v1/locks", { authorization: "Basic YWRtaW46YWRtaW4=" }),
      "malformed",
    );
  });

  it("an expired GitHub token is refused", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12), { ttlSeconds: -120 });
    await refusedWith(await send(h.app, "GET", "/v1/locks", { token }), "expired");
  });

  it("an expired service token is refused", async () => {
    const token = await mintServiceToken({ role: "admin", ttlSeconds: -120 });
    await refusedWith(await send(h.app, "GET", "/v1/locks", { token }), "expired");
  });

  it("a GitHub token that is not valid yet (nbf in the future) is refused", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12), { notBeforeSeconds: 600 });
    await refusedWith(await send(h.app, "GET", "/v1/locks", { token }), "not-yet-valid");
  });

  it("a token from another issuer is refused, even when signed by the GitHub issuer's key", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12), { issuer: "https://token.evil.example" });
    await refusedWith(await send(h.app, "GET", "/v1/locks", { token }), "issuer");
  });

  it("a GitHub token minted for another audience is refused", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12), { audience: "https://github.com/acme" });
    await refusedWith(await send(h.app, "GET", "/v1/locks", { token }), "audience");
  });

  it("an unsigned token (`alg: none`) is refused", async () => {
    const token = new UnsecuredJWT({ ...pullRequestClaims(12) })
      .setIssuer(h.issuer.issuer)
      .setAudience("https://sponson.test")
      .setIssuedAt()
      .setExpirationTime("5m")
      .encode();
    await refusedWith(await send(h.app, "GET", "/v1/locks", { token }), "algorithm");
  });

  it("an HS256 token whose HMAC secret is the issuer's public key is refused (algorithm confusion)", async () => {
    const token = await new SignJWT({ ...pullRequestClaims(12) })
      .setProtectedHeader({ alg: "HS256", kid: h.issuer.publicJwk.kid as string })
      .setIssuer(h.issuer.issuer)
      .setAudience("https://sponson.test")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(h.issuer.publicPem));
    await refusedWith(await send(h.app, "GET", "/v1/locks", { token }), "algorithm");
  });

  it("a GitHub token whose claims were changed after signing is refused", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12));
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload)));
    const forged = base64url.encode(JSON.stringify({ ...claims, ref: "refs/pull/13/merge" }));
    await refusedWith(
      await send(h.app, "GET", "/v1/locks", { token: `${header}.${forged}.${signature}` }),
      "signature",
    );
  });

  it("a GitHub token with a flipped signature byte is refused", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12));
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const bytes = base64url.decode(signature);
    bytes[0] = (bytes[0] ?? 0) ^ 0xff;
    const tampered = `${header}.${payload}.${base64url.encode(bytes)}`;
    await refusedWith(await send(h.app, "GET", "/v1/locks", { token: tampered }), "signature");
  });

  it("a GitHub token naming a key id the issuer does not publish is refused", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12), { kid: "not-a-published-key" });
    await refusedWith(await send(h.app, "GET", "/v1/locks", { token }), "unknown-key");
  });

  it("a service token signed by a key that is not the service's is refused", async () => {
    const token = await mintServiceToken({ role: "admin", signingKey: await newServiceSigningKey() });
    await refusedWith(await send(h.app, "GET", "/v1/locks", { token }), "unknown-key");
  });

  it("a service token with an unknown role is refused", async () => {
    const token = await mintServiceToken({ role: "root" as "admin" });
    await refusedWith(await send(h.app, "GET", "/v1/locks", { token }), "claims");
  });

  it("GitHub tokens are refused when the service has no audience configured (fail closed)", async () => {
    const token = await h.issuer.mint(pullRequestClaims(12));
    const env = securityEnv({ SPONSON_AUDIENCE: undefined });
    await refusedWith(await send(h.app, "GET", "/v1/locks", { token, env }), "not-configured");
  });
});
