/**
 * Connections of one type that may reach one provider account under two names (docs/configuration.md,
 * "One account, one name"). A parent identity names the account by the host a connection is
 * given; spellings of one host are one identity already (shared/canonical-identity.ts), but an
 * Auth0 custom domain and its tenant's `*.auth0.com` domain, an Okta custom domain and the org's
 * Okta domain, an Entra directory's id and one of its domains, are one account only the provider
 * knows. Two such connections lock one object under two identities, and their runs can lose each
 * other's entries. Pure: the connections in, one problem or warning per pair out, at the later one.
 *
 * - A problem when the configuration itself says they are one: an Auth0 connection's `audience`
 *   (the Management API's identifier, always the tenant's own domain) names the other's tenant.
 * - A warning when one of the two names an account only the provider could resolve (a custom
 *   domain without `audience`, a directory by a domain): they may be one.
 * Nothing is resolved over the network: a config check must not depend on the providers.
 */
import { canonicalHost } from "../../shared/canonical-identity";
import type { ConnectionsDocument } from "../connections/connection-schema";
import type { ConfigProblem } from "./config-report";

interface AccountName {
  connection: string;
  /** Where to fix it: the field that names the account. */
  path: string;
  /** The host (or tenant) the identity is built from, canonical. */
  name: string;
  /** The account it certainly is, when the configuration says; null when only the provider knows. */
  account: string | null;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OKTA_DOMAINS = [".okta.com", ".oktapreview.com", ".okta-emea.com", ".okta-gov.com"];

const KINDS: Record<string, { field: string; account: string; advice: string }> = {
  auth0: {
    field: "domain",
    account: "tenant",
    advice:
      "if they are one, reach it through one domain in both, or give the custom domain's connection its tenant's `audience` (https://<tenant>.auth0.com/api/v2/) so this check can tell",
  },
  okta: { field: "domain", account: "org", advice: "if they are one, reach it through one domain in both" },
  entra: {
    field: "tenant",
    account: "directory",
    advice: "name each directory by its id (GUID) in every connection",
  },
};

function hostOf(url: unknown): string | null {
  if (typeof url !== "string") return null;
  try {
    return canonicalHost(new URL(url).host);
  } catch {
    return null;
  }
}

function accountName(connection: string, type: string, config: Record<string, unknown>): AccountName | null {
  const kind = KINDS[type];
  const raw = kind ? config[kind.field] : undefined;
  if (!kind || typeof raw !== "string") return null;
  const name = canonicalHost(raw);
  const path = `SPONSON_CONNECTIONS.${connection}.config.${kind.field}`;
  const account =
    type === "auth0"
      ? (hostOf(config.audience) ?? (name.endsWith(".auth0.com") ? name : null))
      : type === "okta"
        ? OKTA_DOMAINS.some((d) => name.endsWith(d))
          ? name
          : null
        : GUID.test(name)
          ? name
          : null;
  return { connection, path, name, account };
}

export function sameAccountFindings(connections: ConnectionsDocument): {
  problems: ConfigProblem[];
  warnings: ConfigProblem[];
} {
  const problems: ConfigProblem[] = [];
  const warnings: ConfigProblem[] = [];
  const named = Object.entries(connections).flatMap(([name, c]) => {
    const account = accountName(name, c.type, c.config);
    return account ? [{ type: c.type, ...account }] : [];
  });
  for (const [j, later] of named.entries()) {
    for (const earlier of named.slice(0, j)) {
      if (earlier.type !== later.type || earlier.name === later.name) continue;
      const kind = KINDS[later.type] as (typeof KINDS)[string];
      const pair = `connections ${earlier.connection} (${earlier.name}) and ${later.connection} (${later.name})`;
      if (earlier.account !== null && earlier.account === later.account) {
        problems.push({
          path: later.path,
          message: `connections ${earlier.connection} and ${later.connection} reach the same ${kind.account} ${later.account} as ${earlier.name} and ${later.name}: each locks its objects under its own name (two locks, two ownership records for one object), so runs through one can lose the other's entries; reach it through one ${kind.field} in both (docs/configuration.md, "One account, one name")`,
        });
      } else if (earlier.account === null || later.account === null) {
        warnings.push({
          path: later.path,
          message: `${pair} may be the same ${kind.account}: one ${kind.account} under two names is locked twice, and runs through one can lose the other's entries; ${kind.advice} (docs/configuration.md, "One account, one name")`,
        });
      }
    }
  }
  return { problems, warnings };
}
