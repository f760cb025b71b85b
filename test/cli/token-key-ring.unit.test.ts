/**
 * `npm run token` signs with SERVICE_SIGNING_KEY's current key when the secret is a key ring
 * (docs/deploy.md, "Rotating a signing key"), and the Worker's own ring verifies the token by that
 * kid; a lone JWK (the format before rotation) keeps working.
 */
import { decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { newKey } from "../../scripts/key-ring.mjs";
import { currentServiceKey, signServiceToken } from "../../scripts/service-token.mjs";
import { loadKeyRing } from "../../workers/keys/key-ring";

const SERVICE = { name: "SERVICE_SIGNING_KEY", alg: "EdDSA" } as const;
const CLAIMS = { role: "ci", scopes: ["preview/*"], sub: "local-ci", ttl: 600 };

async function ring() {
  const [current, previous, next] = [await newKey("EdDSA"), await newKey("EdDSA"), await newKey("EdDSA")];
  const secret = JSON.stringify({
    keys: [
      { kid: "long-gone", status: "retired" },
      { ...previous.publicJwk, status: "previous" },
      { ...current.privateJwk, status: "current" },
      { ...next.privateJwk, status: "next" },
    ],
  });
  return { secret, current, next };
}

describe("npm run token and a key ring", () => {
  it("signs with the current key's kid, and the Worker's ring verifies the token", async () => {
    const { secret, current, next } = await ring();
    const { token, kid } = await signServiceToken(secret, CLAIMS);
    expect(kid).toBe(current.kid);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: "EdDSA", kid: current.kid });
    expect(decodeProtectedHeader(token).kid).not.toBe(next.kid);
    const workerRing = await loadKeyRing(secret, SERVICE);
    const { payload } = await jwtVerify(token, workerRing.getKey, {
      issuer: "sponson-edge",
      audience: "sponson-edge",
    });
    expect(payload).toMatchObject({ role: "ci", scopes: ["preview/*"], sub: "local-ci" });
  });

  it("a lone private JWK still signs, by its thumbprint as the Worker names it", async () => {
    const key = await newKey("EdDSA");
    const { kid: _kid, alg: _alg, ...lone } = key.privateJwk;
    const secret = JSON.stringify(lone);
    const { token } = await signServiceToken(secret, CLAIMS);
    const workerRing = await loadKeyRing(secret, SERVICE);
    expect(decodeProtectedHeader(token).kid).toBe(workerRing.signer?.kid);
    await expect(jwtVerify(token, workerRing.getKey)).resolves.toBeTruthy();
  });

  it("a ring without a current key is refused without printing the key", async () => {
    const key = await newKey("EdDSA");
    const secret = JSON.stringify({ keys: [{ ...key.privateJwk, status: "next" }] });
    const refused = await currentServiceKey(secret).catch((err: Error) => err.message);
    expect(refused).toBe("SERVICE_SIGNING_KEY has no single current key to sign with");
    expect(String(refused)).not.toContain(String(key.privateJwk.d));
  });
});
