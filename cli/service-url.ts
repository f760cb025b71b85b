/**
 * The Sponson service URL a token is sent to. `https://` anywhere; `http://` only on loopback (the
 * local instance `npm start` serves, a tunnel's local end), where the token never crosses a
 * network: elsewhere the job's token would travel in clear. Pure: the CLI and the Action both ask.
 */

/** URL.hostname spellings of loopback; `127.0.0.1.nip.io` or `localhost.example` are not. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Whether `url` names this machine (the local instance), where nothing listening means nothing to wait for. */
export function isLoopbackUrl(url: string): boolean {
  return URL.canParse(url) && LOOPBACK_HOSTS.has(new URL(url).hostname);
}

/** Why `url` cannot be the service URL, or null when it can. */
export function serviceUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `the service URL "${url}" is not an http(s) URL`;
  }
  if (parsed.protocol === "https:") return null;
  if (parsed.protocol !== "http:") return `the service URL "${url}" is not an http(s) URL`;
  if (LOOPBACK_HOSTS.has(parsed.hostname)) return null;
  return `the service URL "${url}" must be https:// (http:// only on loopback: 127.0.0.1, localhost, [::1]), or the token would cross the network in clear`;
}
