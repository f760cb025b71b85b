/**
 * The GitHub OIDC issuer's signing keys (docs/design.md, "Security model"): one remote JWKS per issuer,
 * cached for the life of the isolate (jose refreshes it after 10 minutes, or sooner when a token names an
 * unknown key id, at most every 30 s). The fetch is injectable so tests serve a local key set: there is no
 * network in tests. Token verification happens in middleware, before any lease is taken, so a key
 * fetch never runs while a lease is held (docs/design.md, "Lease protocol").
 */
import { createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey } from "jose";

/** Where GitHub (and GitHub Enterprise Server, under `/_services/token`) publishes its keys. */
export function jwksUrl(issuer: string): URL {
  return new URL(`${issuer.replace(/\/+$/, "")}/.well-known/jwks`);
}

/** The key set could not be fetched or read: the issuer's fault or ours, never the caller's. */
export class KeySetUnavailable extends Error {
  constructor(cause: unknown) {
    super("the issuer's key set could not be fetched", { cause });
    this.name = "KeySetUnavailable";
  }
}

export type GithubKeySource = (issuer: string) => JWTVerifyGetKey;

/**
 * One remote JWKS per name, at the URL `urlOf` (service configuration) gives, kept for the isolate's
 * life. An unknown key id is the token's problem; anything else is the key set's availability.
 */
export function remoteKeySets(urlOf: (name: string) => URL, fetchImpl?: typeof fetch) {
  const byName = new Map<string, JWTVerifyGetKey>();
  return (name: string): JWTVerifyGetKey => {
    let keys = byName.get(name);
    if (keys === undefined) {
      const remote = createRemoteJWKSet(urlOf(name), {
        timeoutDuration: 5_000,
        ...(fetchImpl ? { [customFetch]: fetchImpl } : {}),
      });
      keys = async (header, token) => {
        try {
          return await remote(header, token);
        } catch (err) {
          if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys)
            throw err;
          throw new KeySetUnavailable(err);
        }
      };
      byName.set(name, keys);
    }
    return keys;
  };
}

export function remoteGithubKeys(fetchImpl?: typeof fetch): GithubKeySource {
  return remoteKeySets(jwksUrl, fetchImpl);
}
