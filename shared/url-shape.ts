/**
 * The preview-URL shape check (docs/design.md, "Security model"): two mistakes a plan can make that
 * no provider refuses and no one notices until they are exploited. Shared by the service (before
 * any lease and any outbound request, for preview and apply) and the CLI's offline `plan check`.
 *
 * - `publicSuffixWildcard`: a wildcard label whose rest is a public suffix (`*.vercel.app`,
 *   `*-site.netlify.app`, `*.com`) matches a site anyone can create there. The Public Suffix List
 *   with its private section (tldts) knows which rests are suffixes: `vercel.app` is, like `co.uk`;
 *   `preview.example.com` is not. A bare `*` (CORS) covers every domain.
 * - `plainHttp`: an `http://` item sends the redirect, and the code or token it carries, in the
 *   clear. Loopback (`localhost`, `127.0.0.1`, `[::1]`) never leaves the machine and is allowed.
 *
 * Items come in three shapes (URLs for most ops, origins for CORS, bare domains for Firebase's
 * authorized domains); each is read down to its host. Hosts are compared as providers compare
 * them: lowercase, without a port, user info or one trailing dot. Custom schemes
 * (`com.example.app://callback`) have no DNS host and are not judged.
 */
import { getDomain } from "tldts";

export const URL_CHECK_RULES = ["publicSuffixWildcard", "plainHttp"] as const;
export type UrlCheckRule = (typeof URL_CHECK_RULES)[number];
export type UrlChecks = Record<UrlCheckRule, boolean>;

/** Every rule on: the default in every environment, and what the offline `plan check` applies. */
export const ALL_URL_CHECKS: UrlChecks = { publicSuffixWildcard: true, plainHttp: true };

export interface ShapeProblem {
  rule: `urlChecks.${UrlCheckRule}`;
  message: string;
}

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);
const PSL_OPTIONS = { allowPrivateDomains: true, extractHostname: false, validateHostname: false } as const;

interface ItemParts {
  /** Lowercase scheme, or null for a bare domain (or a bare `*`). */
  scheme: string | null;
  host: string;
}

/** Full stops that browsers read as `.` in a host name (UTS #46): an item may not hide one. */
const DOTS = /[\u3002\uff0e\uff61]/g;

function partsOf(item: string): ItemParts {
  const schemeMatch = /^([a-z][a-z0-9+.-]*):\/\//i.exec(item);
  const scheme = schemeMatch ? (schemeMatch[1] as string).toLowerCase() : null;
  const rest = schemeMatch ? item.slice(schemeMatch[0].length) : item;
  const authority = rest.split(/[/?#]/, 1)[0] ?? "";
  let host = authority.slice(authority.lastIndexOf("@") + 1);
  host = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : (host.split(":", 1)[0] ?? "");
  try {
    host = decodeURIComponent(host);
  } catch {
    // Not percent-encoding a provider would decode either: judged as written.
  }
  host = host.toLowerCase().replace(DOTS, ".");
  return { scheme, host: host.endsWith(".") ? host.slice(0, -1) : host };
}

/** The rest a wildcard covers every registrable name of, or null when the host has no wildcard. */
function wildcardRest(host: string): string | null {
  const labels = host.split(".");
  let last = -1;
  labels.forEach((label, i) => {
    if (label.includes("*")) last = i;
  });
  return last === -1 ? null : labels.slice(last + 1).join(".");
}

function publicSuffixProblem(item: string, host: string): ShapeProblem | null {
  const rest = wildcardRest(host);
  if (rest === null) return null;
  if (rest !== "" && getDomain(rest, PSL_OPTIONS) !== null) return null;
  const covers =
    rest === ""
      ? "the wildcard covers every domain"
      : `the wildcard covers every name under ${rest}, a public suffix (Public Suffix List): anyone can create a site there that matches it`;
  return {
    rule: "urlChecks.publicSuffixWildcard",
    message:
      `item "${item}": ${covers}. Write the deployment's own URL instead (e.g. \`{vars.url}\` with ` +
      "`--var url=<the URL your deploy step printed>`), or a wildcard under a domain you own " +
      "(`https://*.preview.example.com`)",
  };
}

function plainHttpProblem(item: string, parts: ItemParts): ShapeProblem | null {
  if (parts.scheme !== "http" || LOOPBACK_HOSTS.has(parts.host)) return null;
  return {
    rule: "urlChecks.plainHttp",
    message:
      `item "${item}": http:// sends the redirect and what it carries in the clear; write https:// ` +
      "instead (only localhost, 127.0.0.1 and [::1] may use http://)",
  };
}

/** The rules `item` breaks among those `checks` turns on, in URL_CHECK_RULES order; [] when none. */
export function itemShapeProblems(item: string, checks: UrlChecks = ALL_URL_CHECKS): ShapeProblem[] {
  const parts = partsOf(item);
  const webHost = parts.scheme === null || parts.scheme === "http" || parts.scheme === "https";
  const problems: ShapeProblem[] = [];
  const wildcard = checks.publicSuffixWildcard && webHost ? publicSuffixProblem(item, parts.host) : null;
  if (wildcard) problems.push(wildcard);
  const http = checks.plainHttp ? plainHttpProblem(item, parts) : null;
  if (http) problems.push(http);
  return problems;
}
