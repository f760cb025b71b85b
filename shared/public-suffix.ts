/**
 * Which names are public suffixes (docs/design.md, "Security model", the URL shape check): names
 * under which anyone can register a site of their own, so an entry that matches every name under
 * one matches sites its owner never made. The Public Suffix List with its private section (tldts)
 * knows them: `com` and `co.uk`, and `vercel.app`, `web.app`, `github.io`, where each customer's
 * site is a name of its own. A single label the list does not know (`internal`) counts as one too,
 * by the list's default rule. Pure; no clock, no I/O.
 */
import { getDomain, parse } from "tldts";

const PSL_OPTIONS = { allowPrivateDomains: true, extractHostname: false, validateHostname: false } as const;

/** Names that never leave the machine: matching what is under them matches nobody else's site. */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(["localhost"]);

/** Whether `host` (lowercase, no trailing dot) is a public suffix: no registrable name is at or above it. */
export function isPublicSuffix(host: string): boolean {
  return getDomain(host, PSL_OPTIONS) === null;
}

/**
 * Whether an entry a provider matches along with every subdomain (reCAPTCHA's allowed domains)
 * covers a public suffix: the entry is one. An IP address has no subdomains, and `localhost` none
 * anyone else can have, so neither does.
 */
export function subdomainsCoverPublicSuffix(host: string): boolean {
  if (LOOPBACK_NAMES.has(host) || parse(host, PSL_OPTIONS).isIp) return false;
  return isPublicSuffix(host);
}
