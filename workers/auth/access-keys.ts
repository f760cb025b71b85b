/**
 * The Cloudflare Access team's signing keys (docs/security.md, "Cloudflare Access"): one remote JWKS
 * per team domain, at the URL SPONSON_ACCESS's team domain decides, cached for the life of the
 * isolate (jose refetches after 10 minutes, or sooner when an assertion names an unknown `kid`, at
 * most every 30 s, which is how Cloudflare's key rotation reaches us). The fetch is injectable: the
 * dev entry answers its local issuer's keys, tests serve theirs; production uses the network.
 */
import type { JWTVerifyGetKey } from "jose";
import { accessCertsUrl } from "./access-config";
import { remoteKeySets } from "./github-keys";

export type AccessKeySource = (teamDomain: string) => JWTVerifyGetKey;

export function remoteAccessKeys(fetchImpl?: typeof fetch): AccessKeySource {
  return remoteKeySets(accessCertsUrl, fetchImpl);
}
