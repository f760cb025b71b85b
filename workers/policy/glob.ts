/**
 * Glob patterns for the server-side policy (docs/design.md, "Security model") and service-token scopes. No
 * regular expressions are built from configuration, so a pattern can never inject one: a pattern is a
 * list of literal characters and `*` wildcards, matched by a small dynamic program (linear in
 * pattern × text, no backtracking blow-up).
 *
 * The only special character is `*`. What one `*` may match depends on the kind of pattern
 * (each kind below says it); `**` is refused when a pattern is loaded. A `*` never matches a `*`
 * in the text, so a wildcard item ("https://*.example.com") is never allowed by a wildcard
 * pattern. `\*` is a literal `*`, so a list's own globs can be admitted exactly: Supabase's
 * redirect list takes entries like `https://pr-1.preview.example.com/**`, which the pattern
 * `https://*.preview.example.com/\*\*` admits, and nothing else. A `\` escapes nothing else.
 */

type CharClass = (ch: string) => boolean;
type Token = { kind: "lit"; ch: string } | { kind: "star"; allowed: CharClass; min: 0 | 1 };

function isControlOrSpace(ch: string): boolean {
  const code = ch.charCodeAt(0);
  return code <= 0x20 || code === 0x7f;
}

/** One host label: letters, digits, `-` and `_`; at least one character. */
const HOST_LABEL: CharClass = (ch) => /^[A-Za-z0-9_-]$/.test(ch);
/** A run of path characters (may cross `/`); stops at `?`, `#`, `\`, space and controls. */
const PATH_RUN: CharClass = (ch) => !"?#*\\".includes(ch) && !isControlOrSpace(ch);
/** Anything but `sep`, `*`, space and controls. */
const segment =
  (sep: string): CharClass =>
  (ch) =>
    ch !== sep && ch !== "*" && !isControlOrSpace(ch);

/** Pattern characters, `\*` read as one literal `*` (a `\` before anything else is refused at load). */
function tokenize(pattern: string, star: CharClass, min: 0 | 1): Token[] {
  const chars = [...pattern];
  const tokens: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    if (ch === "\\" && chars[i + 1] === "*") tokens.push({ kind: "lit", ch: chars[++i] as string });
    else tokens.push(ch === "*" ? { kind: "star", allowed: star, min } : { kind: "lit", ch });
  }
  return tokens;
}

/** Whether `tokens` match all of `text`. dp[j] = tokens[i..] match text[j..]. */
function matchTokens(tokens: Token[], text: string): boolean {
  const chars = [...text];
  const n = chars.length;
  let next: boolean[] = new Array(n + 1).fill(false);
  next[n] = true;
  for (let i = tokens.length - 1; i >= 0; i--) {
    const token = tokens[i] as Token;
    const cur: boolean[] = new Array(n + 1).fill(false);
    for (let j = n; j >= 0; j--) {
      const ch = chars[j];
      if (token.kind === "lit") {
        cur[j] = ch === token.ch && next[j + 1] === true;
      } else {
        const takesOne =
          ch !== undefined && token.allowed(ch) && (next[j + 1] === true || cur[j + 1] === true);
        cur[j] = takesOne || (token.min === 0 && next[j] === true);
      }
    }
    next = cur;
  }
  return next[0] === true;
}

/** Problems that make a pattern unusable; empty when it is fine. */
export function patternProblem(pattern: string): string | null {
  if (pattern.length === 0) return "a pattern may not be empty";
  if (pattern.replaceAll("\\*", "").includes("\\"))
    return "a `\\` may only escape a `*` (`\\*` is a literal `*`)";
  const tokens = tokenize(pattern, () => false, 1);
  if (tokens.some((t, i) => t.kind === "star" && tokens[i + 1]?.kind === "star")) {
    return "`**` is not supported: one `*` matches within one segment (write `\\*\\*` for a literal `**`)";
  }
  if ([...pattern].some(isControlOrSpace)) return "a pattern may not contain spaces or control characters";
  return null;
}

/**
 * Parent identities, e.g. `auth0:acme.us.auth0.com:client:*`. `*` matches one or more characters
 * within one `:`-separated segment. Case-sensitive (client ids are).
 */
export function matchIdentity(pattern: string, identity: string): boolean {
  return matchTokens(tokenize(pattern, segment(":"), 1), identity);
}

/** Op names, e.g. `auth0.*`: `*` matches one or more characters within one `.`-separated part. */
export function matchOp(pattern: string, op: string): boolean {
  return matchTokens(tokenize(pattern, segment("."), 1), op);
}

/**
 * Splits a URL-like value into its head (scheme and authority, or a bare host) and its tail (the
 * path from the first `/` after the authority, with query and fragment; "" when there is none).
 */
function splitUrlish(value: string): { head: string; tail: string } {
  const schemeEnd = value.indexOf("://");
  const from = schemeEnd === -1 ? 0 : schemeEnd + 3;
  const slash = value.indexOf("/", from);
  return slash === -1 ? { head: value, tail: "" } : { head: value.slice(0, slash), tail: value.slice(slash) };
}

/**
 * Items, e.g. `https://*.preview.example.com/*`, `https://*.preview.example.com` (an origin) or
 * `*.preview.example.com` (a bare domain, as Firebase lists them). Pattern and item are each
 * split into head (scheme and host, compared case-insensitively) and tail (path, case-sensitive);
 * both parts must match in full.
 * - In the head, `*` matches exactly one host label: one or more of `A-Z a-z 0-9 - _`. It never
 *   crosses `.`, `:` (port), `@` (user info) or `/`.
 * - In the tail, `*` matches any run of path characters, possibly empty and possibly crossing
 *   `/`, but never `?`, `#`, `\`, spaces or controls; so `/*` admits every path and no query.
 * - A pattern without a tail admits only items without one: an origin pattern does not admit URLs.
 */
export function matchItem(pattern: string, item: string): boolean {
  const p = splitUrlish(pattern);
  const v = splitUrlish(item);
  return (
    matchTokens(tokenize(p.head.toLowerCase(), HOST_LABEL, 1), v.head.toLowerCase()) &&
    matchTokens(tokenize(p.tail, PATH_RUN, 0), v.tail)
  );
}

/**
 * Service-token scopes, `environment/scope`, e.g. `preview/pr-1`, `*\/pr-2`, `preview/*`. In the
 * environment part `*` matches one or more of `a-z 0-9 -`; in the scope part it matches one or
 * more of any character but `*` (branch names may contain `/`).
 */
export function matchScopePattern(pattern: string, environment: string, scope: string): boolean {
  const slash = pattern.indexOf("/");
  if (slash === -1) return false;
  const envClass: CharClass = (ch) => /^[a-z0-9-]$/.test(ch);
  return (
    matchTokens(tokenize(pattern.slice(0, slash), envClass, 1), environment) &&
    matchTokens(tokenize(pattern.slice(slash + 1), segment(""), 1), scope)
  );
}
