/**
 * The Cloudflare Access team's signing keys (docs/security.md, "Cloudflare Access"): one remote JWKS
 * per team domain, at the URL SPONSON_ACCESS's team domain decides, cached for the life of the
 * isolate (jose refetches after 10 minutes, or sooner when an assertion names an unknown `kid`, at
 * most every 30 s, which is how Cloudflare's key rotation reaches us). The fetch is injectable: the
 * dev entry answers its local issuer's keys, tests serve theirs; production uses the network.
 */
import { createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey } from "jose";
import { accessCertsUrl } from "./access-config";
import { KeySetUnavailable } from "./github-keys";

export type AccessKeySource = (teamDomain: string) => JWTVerifyGetKey;

export function remoteAccessKeys(fetchImpl?: typeof fetch): AccessKeySource {
  const byTeam = new Map<string, JWTVerifyGetKey>();
  return (teamDomain) => {
    let keys = byTeam.get(teamDomain);
    if (keys === undefined) {
      const remote = createRemoteJWKSet(accessCertsUrl(teamDomain), {
        timeoutDuration: 5_000,
        ...(fetchImpl ? { [customFetch]: fetchImpl } : {}),
      });
      keys = async (header, token) => {
        try {
          return await remote(header, token);
        } catch (err) {
          // An unknown key id is the assertion's problem; anything else is availability.
          if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys)
            throw err;
          throw new KeySetUnavailable(err);
        }
      };
      byTeam.set(teamDomain, keys);
    }
    return keys;
  };
}
