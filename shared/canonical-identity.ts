/**
 * One provider object, one identity (docs/design.md, "Vocabulary"): a parent identity names its
 * object's host the way a URL does, so two spellings of one host never become two locks and two
 * ownership records for the same object. Pure; no lookup, no network.
 *
 * Canonical host: lower case, no trailing dot, no `:443` (every adapter speaks https). What this
 * cannot see is left alone and left to `config check` (workers/config/same-account-check.ts): an
 * Auth0 custom domain and its tenant's `*.auth0.com` domain, an Entra tenant's GUID and one of its
 * domains, are one account only the provider knows.
 *
 * Identities stored by earlier versions are read through `canonicalIdentity` too (receipts, lock
 * names, the owned-object index), so an entry recorded under the old spelling is found under the
 * new one; `identitySpellings` lists what an earlier version may have stored for an identity, for
 * the receipts' parent tags (docs/upgrading.md, "One lock per provider object").
 */

/** The identity prefixes whose second field is a host (or an Entra tenant, which may be a domain). */
const HOST_IDENTITY = /^(auth0|okta|kinde|keycloak|entra):([^:]+)(?::(\d{1,5}))?(:.*)$/;

const DEFAULT_PORT = "443";

export function canonicalHost(host: string): string {
  const match = /^(.*?)(?::(\d{1,5}))?$/.exec(host.trim());
  const name = (match?.[1] ?? host).toLowerCase().replace(/\.$/, "");
  const port = match?.[2];
  return port === undefined || port === DEFAULT_PORT ? name : `${name}:${port}`;
}

/** The identity with its host canonical; any other identity as it is. */
export function canonicalIdentity(identity: string): string {
  const match = HOST_IDENTITY.exec(identity);
  if (!match) return identity;
  const [, type, host, port, rest] = match;
  return `${type}:${canonicalHost(port === undefined ? (host as string) : `${host}:${port}`)}${rest}`;
}

/**
 * The canonical identity, then each spelling of it an earlier version may have stored: earlier
 * versions lower-cased hosts and no schema admitted a trailing dot, but a Keycloak `host` could
 * carry `:443`.
 */
export function identitySpellings(identity: string): string[] {
  const canonical = canonicalIdentity(identity);
  const match = HOST_IDENTITY.exec(canonical);
  if (match?.[1] !== "keycloak" || match[3] !== undefined) return [canonical];
  return [canonical, `keycloak:${match[2]}:${DEFAULT_PORT}${match[4]}`];
}
