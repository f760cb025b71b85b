/**
 * The preview-URL shape check (docs/design.md, "Security model"): mistakes a plan can make that
 * no provider refuses and no one notices until they are exploited. Shared by the service (before
 * any lease and any outbound request, for preview and apply, and for an adoption) and the CLI's
 * offline `plan check`.
 *
 * - `hostAsWritten` (always on): the item's host is what a browser reads (./item-host.ts) — no
 *   fullwidth letters, soft hyphens, zero-width spaces or escapes a browser maps away, and `//`
 *   after `http:` / `https:`. Otherwise the rules below would judge a host no browser visits.
 * - `publicSuffixWildcard`: a wildcard label whose rest is a public suffix (`*.vercel.app`,
 *   `*-site.netlify.app`, `*.com`) matches a site anyone can create there. The Public Suffix List
 *   with its private section (tldts) knows which rests are suffixes: `vercel.app` is, like `co.uk`;
 *   `preview.example.com` is not (./public-suffix.ts). A bare `*` (CORS) covers every domain. An
 *   item whose op says it admits its subdomains (`coversSubdomains`: Turnstile's hostnames,
 *   reCAPTCHA's allowed domains) is the wildcard `*.<item>`: `vercel.app` there covers every site
 *   under it, as `*.vercel.app` does in a redirect list.
 * - `plainHttp`: an `http://` item sends the redirect, and the code or token it carries, in the
 *   clear. Loopback (`localhost`, `127.0.0.1`, `[::1]`) never leaves the machine and is allowed.
 *
 * Items come in three shapes (URLs for most ops, origins for CORS, bare domains for Firebase's
 * authorized domains); each is read down to the host a browser reads: lowercase, without a port,
 * user info or one trailing dot. Custom schemes (`com.example.app://callback`) have no DNS host and
 * are not judged.
 */
import { type ItemHost, itemHost, visibleHost } from "./item-host";
import { isPublicSuffix, subdomainsCoverPublicSuffix } from "./public-suffix";

export const URL_CHECK_RULES = ["publicSuffixWildcard", "plainHttp"] as const;
export type UrlCheckRule = (typeof URL_CHECK_RULES)[number];
export type UrlChecks = Record<UrlCheckRule, boolean>;

/** Every rule on: the default in every environment, and what the offline `plan check` applies. */
export const ALL_URL_CHECKS: UrlChecks = { publicSuffixWildcard: true, plainHttp: true };

/**
 * Always on, whatever an environment's `urlChecks` say: the other rules and the write policy judge
 * the host as written, so an item a browser reads otherwise would make every one of them moot.
 */
export const HOST_AS_WRITTEN_RULE = "urlChecks.hostAsWritten";

export interface ShapeProblem {
  rule: `urlChecks.${UrlCheckRule}` | typeof HOST_AS_WRITTEN_RULE;
  message: string;
}

/** What an op says of its items beyond their text (`OpSpec.coversSubdomains`). */
export interface ItemShape {
  /** An item, a bare host, also admits every name under it (Turnstile's hostnames, reCAPTCHA's domains). */
  coversSubdomains?: boolean | undefined;
}

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);

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
  if (rest !== "" && !isPublicSuffix(rest)) return null;
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

/** A host that admits its subdomains is `*.<host>`: refused when the host is a public suffix itself. */
function subdomainsProblem(item: string, host: string): ShapeProblem | null {
  if (host === "" || !subdomainsCoverPublicSuffix(host)) return null;
  return {
    rule: "urlChecks.publicSuffixWildcard",
    message:
      `item "${item}": the item admits its subdomains, so it covers every name under ${host}, a public ` +
      "suffix (Public Suffix List): anyone can create a site there that it admits. Write the " +
      "deployment's own host instead (e.g. `{vars.host}` with `--var host=<the host your deploy step " +
      "printed>`), or a domain you own (`preview.example.com`)",
  };
}

const WRITE_AS_READ =
  "write the host as a browser reads it: in ASCII, without escapes or invisible characters " +
  "(a name in another script in punycode, `xn--…`)";

function hostAsWrittenProblem(item: string, parts: ItemHost): ShapeProblem | null {
  const misread = parts.misread;
  if (misread === null) return null;
  const scheme = parts.scheme ?? "https";
  const message =
    misread.kind === "slashes"
      ? `item "${item}": a browser reads "${scheme}:" without "//" as "${scheme}://", host "${misread.read}"; ` +
        `write "${scheme}://" with both slashes`
      : misread.kind === "differs"
        ? `item "${item}": a browser reads its host as "${misread.read}", not as written ` +
          `("${visibleHost(misread.written)}"); ${WRITE_AS_READ}`
        : `item "${item}": a browser reads no host in it (the WHATWG URL parser refuses it); ${WRITE_AS_READ}`;
  return { rule: HOST_AS_WRITTEN_RULE, message };
}

function plainHttpProblem(item: string, parts: ItemHost): ShapeProblem | null {
  if (parts.scheme !== "http" || LOOPBACK_HOSTS.has(parts.host)) return null;
  return {
    rule: "urlChecks.plainHttp",
    message:
      `item "${item}": http:// sends the redirect and what it carries in the clear; write https:// ` +
      "instead (only localhost, 127.0.0.1 and [::1] may use http://)",
  };
}

/**
 * The rules `item` breaks: the host as written first (always), then those `checks` turns on, in
 * URL_CHECK_RULES order, judged on the host a browser reads (as `*.<host>` when `shape` says the
 * item admits its subdomains); [] when none.
 */
export function itemShapeProblems(
  item: string,
  checks: UrlChecks = ALL_URL_CHECKS,
  shape: ItemShape = {},
): ShapeProblem[] {
  const parts = itemHost(item);
  const webHost = parts.scheme === null || parts.scheme === "http" || parts.scheme === "https";
  const problems: ShapeProblem[] = [];
  const misread = webHost ? hostAsWrittenProblem(item, parts) : null;
  if (misread) problems.push(misread);
  const wildcardOf =
    shape.coversSubdomains && wildcardRest(parts.host) === null ? subdomainsProblem : publicSuffixProblem;
  const wildcard = checks.publicSuffixWildcard && webHost ? wildcardOf(item, parts.host) : null;
  if (wildcard) problems.push(wildcard);
  const http = checks.plainHttp ? plainHttpProblem(item, parts) : null;
  if (http) problems.push(http);
  return problems;
}
