/**
 * docs/design.md, "Signing keys": SERVICE_SIGNING_KEY may hold a key ring. The current key signs,
 * next and previous verify, a retired key is refused by name, and a lone JWK keeps working.
 */
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { type Harness, harness, problem, securityEnv, send } from "../auth/harness";

interface TestKey {
  kid: string;
  jwk: Record<string, unknown>;
  privateKey: CryptoKey;
}

async function edKey(kid: string): Promise<TestKey> {
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  return { kid, jwk: { ...(await exportJWK(privateKey)), kid }, privateKey };
}

function tokenBy(key: TestKey, role = "viewer"): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role })
    .setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ: "JWT" })
    .setIssuer("sponson-edge")
    .setAudience("sponson-edge")
    .setSubject("rotation-test")
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(key.privateKey);
}

const publicOf = ({ d: _d, ...jwk }: Record<string, unknown>) => jwk;

let h: Harness;
let older: TestKey;
let previous: TestKey;
let current: TestKey;
let next: TestKey;
let ringEnv: ReturnType<typeof securityEnv>;
beforeAll(async () => {
  h = await harness();
  [older, previous, current, next] = (await Promise.all(
    ["k-2026-01", "k-2026-06", "k-2026-12", "k-2027-06"].map(edKey),
  )) as [TestKey, TestKey, TestKey, TestKey];
  ringEnv = securityEnv({
    SERVICE_SIGNING_KEY: JSON.stringify({
      keys: [
        { kid: older.kid, status: "retired" },
        { ...publicOf(previous.jwk), status: "previous" },
        { ...current.jwk, status: "current" },
        { ...next.jwk, status: "next" },
      ],
    }),
  });
});

describe("a service key ring", () => {
  it.each([
    ["current", () => current],
    ["next", () => next],
    ["previous", () => previous],
  ])("a token signed by the %s key is accepted", async (_status, key) => {
    const res = await send(h.probe, "GET", "/v1/whoami", { token: await tokenBy(key()), env: ringEnv });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { caller: { subject: string } }).caller.subject).toBe("rotation-test");
  });

  it("a token signed by a retired key is refused 401 with a message naming the key", async () => {
    const res = await send(h.probe, "GET", "/v1/whoami", { token: await tokenBy(older), env: ringEnv });
    expect(res.status).toBe(401);
    const body = await problem(res);
    expect(body.reason).toBe("retired-key");
    expect(body.detail).toContain('"k-2026-01"');
    expect(body.detail).toContain("retired");
  });

  it("a token naming a kid the ring never held is refused as an unknown key (control)", async () => {
    const stranger = await edKey("k-stranger");
    const res = await send(h.probe, "GET", "/v1/whoami", { token: await tokenBy(stranger), env: ringEnv });
    expect(res.status).toBe(401);
    expect((await problem(res)).reason).toBe("unknown-key");
  });

  it("POST /v1/tokens signs with the ring's current key", async () => {
    const res = await send(h.app, "POST", "/v1/tokens", {
      token: await tokenBy(current, "admin"),
      env: ringEnv,
      body: { subject: "minted-by-ring", role: "viewer", ttlSeconds: 300 },
    });
    expect(res.status).toBe(201);
    const { token } = (await res.json()) as { token: string };
    const header = JSON.parse(atob(token.split(".")[0]?.replace(/-/g, "+").replace(/_/g, "/") ?? ""));
    expect(header.kid).toBe(current.kid);
    const again = await send(h.probe, "GET", "/v1/whoami", { token, env: ringEnv });
    expect(again.status).toBe(200);
  });

  it("a ring whose keys are not Ed25519 answers 500 naming the secret, never its value", async () => {
    const { privateKey } = await generateKeyPair("RS256", { extractable: true });
    const rsa = await exportJWK(privateKey);
    const env = securityEnv({
      SERVICE_SIGNING_KEY: JSON.stringify({ keys: [{ ...rsa, kid: "rsa", status: "current" }] }),
    });
    const res = await send(h.probe, "GET", "/v1/whoami", { token: await tokenBy(current), env });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).toContain("SERVICE_SIGNING_KEY is not an Ed25519 JWK");
    expect(text).not.toContain(String(rsa.d));
  });
});
