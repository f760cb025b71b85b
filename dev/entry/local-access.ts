/**
 * The local Cloudflare Access issuer (`npm start`; docs/security.md, "Cloudflare Access"): stands in
 * for a team so the sign-in path runs end to end without Cloudflare. Its private key is
 * SPONSON_ACCESS_DEV_KEY (an RS256 JWK that scripts/dev-access.mjs generates into .dev.vars and
 * `npm run token -- --access <email>` signs with); its JWKS is answered here, for team domains on a
 * `.localhost` host only (never resolvable on the internet), by the dev entry's key fetch. The
 * production entry imports nothing from dev/, so it never serves or trusts this key.
 */
import { calculateJwkThumbprint, type JWK } from "jose";

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi"] as const;

/** The public half of the dev key with its RFC 7638 kid, or null when the key is not set. */
export async function localAccessJwks(devKey: unknown): Promise<{ keys: JWK[] } | null> {
  if (typeof devKey !== "string" || devKey === "") return null;
  const jwk = JSON.parse(devKey) as JWK;
  if (jwk.kty !== "RSA" || typeof jwk.n !== "string") return null;
  const pub: JWK = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete pub[member];
  const kid = await calculateJwkThumbprint({ kty: "RSA", e: pub.e, n: pub.n } as JWK);
  return { keys: [{ kty: "RSA", e: pub.e, n: pub.n, kid, alg: "RS256", use: "sig" }] };
}

/**
 * The dev entry's fetch for Access keys: the local issuer's JWKS for a `.localhost` team, the
 * network for a real one (a developer pointing SPONSON_ACCESS at their team).
 */
export function localAccessFetch(devKey: () => unknown): typeof fetch {
  return async (input, init) => {
    const url = new URL(new Request(input, init).url);
    if (!url.hostname.endsWith(".localhost")) return fetch(input, init);
    const jwks = url.pathname === "/cdn-cgi/access/certs" ? await localAccessJwks(devKey()) : null;
    if (jwks === null) return new Response("no local Access issuer key", { status: 404 });
    return Response.json(jwks);
  };
}
