/**
 * A real local instance for the browser tests (test/support/wrangler-dev.ts) with a service public
 * key made for this run: its private half signs the tokens here, so nothing is read from or written
 * to the developer's .dev.vars.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from "jose";
import { startWranglerDev, type WranglerDev } from "../support/wrangler-dev";

export interface LocalServer extends WranglerDev {
  token(role: "viewer" | "ci" | "admin", sub: string): Promise<string>;
}

export async function startLocalServer(): Promise<LocalServer> {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const server = await startWranglerDev({
    name: "e2e",
    vars: { SERVICE_PUBLIC_KEY: JSON.stringify({ ...publicJwk, kid }) },
    readyTimeoutMs: 90_000,
  });
  return {
    ...server,
    async token(role, sub) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ role })
        .setProtectedHeader({ alg: "EdDSA", kid, typ: "JWT" })
        .setIssuer("sponson-edge")
        .setAudience("sponson-edge")
        .setSubject(sub)
        .setIssuedAt(now)
        .setExpirationTime(now + 900)
        .sign(privateKey);
    },
  };
}
