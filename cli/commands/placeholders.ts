/**
 * Values a copy of examples/production/wrangler.toml still holds from the example (docs/deploy.md,
 * "Day one: the checklist"): the example's company (acme), organisation (your-org), reserved example
 * domains and keys, made-up ids, and `<…>` stand-ins. Such a config is valid, so `config check`
 * warns, once per value, naming its path; every example value is of one of these kinds, so none
 * passes unseen (test/repo/production-deploy.test.ts).
 *
 * Also what an env file's placeholder for a secret looks like (`<set with wrangler secret put>`,
 * `xxx`): such a secret is counted as set by name, and its content is not judged.
 */
import type { ConfigProblem } from "../../workers/config/config-report";

/**
 * `words` as whole tokens of a value: between its start or end and anything but a letter or digit
 * (`.`, `-`, `_`, `/`, `:`), so `acme.us.auth0.com` and `WEBHOOK_SECRET_ACME_WEB` are the example's
 * and `acmeplumbing.com` is not.
 */
const token = (words: string) => new RegExp(`(?<![a-z0-9])(?:${words})(?![a-z0-9])`, "i");

/** What a value holds that only the example has, and how to say it; the first that matches. */
const KINDS: [RegExp, string][] = [
  [/<[^<>\s][^<>]*>/, "a <…> stand-in"],
  [token("your-org"), "the example's your-org"],
  [token("acme|contoso"), "the example's company"],
  // RFC 2606 names; AWS's documented example key ids (AKIAIOSFODNN7EXAMPLE), which have no
  // separator to make EXAMPLE a token, and no real key id has (random base32, 7 letters in a row).
  [token("example"), "an example name or key"],
  [/^A[KS]IA[A-Z0-9]*EXAMPLE/, "an example name or key"],
  [
    /(?:^|[^0-9])(?:0?123456789|987654321)(?:[^0-9]|$)|0123456789abcdef|abcdefghijklmnopqrst/i,
    "a made-up id",
  ],
  [/^0{8}-0{4}-0{4}-0{4}-0{12}$/, "an all-zero id"],
];

/** Why `value` is the example's, or null. */
export function placeholderKind(value: string): string | null {
  for (const [pattern, kind] of KINDS) if (pattern.test(value)) return kind;
  return null;
}

const isTable = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A var given as JSON text is walked like a TOML table. */
function parsedJson(value: string): unknown {
  if (!/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * One warning per leaf value of a wrangler config that is the example's. Paths as `config check`
 * prints them: a var by its name (`SPONSON_POLICY.environments.preview.items.0`), anything else from
 * the top (`routes.0.pattern`).
 */
export function placeholderWarnings(config: Record<string, unknown>): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  const walk = (given: unknown, path: string[]): void => {
    const value = typeof given === "string" && path.length <= 1 ? parsedJson(given) : given;
    if (Array.isArray(value)) for (const [i, v] of value.entries()) walk(v, [...path, String(i)]);
    else if (isTable(value)) for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
    else if (typeof value === "string" || typeof value === "number") {
      const kind = placeholderKind(String(value));
      if (kind !== null)
        warnings.push({
          path: path.join("."),
          message: `${JSON.stringify(value)} is ${kind}, a placeholder: put your own value`,
        });
    }
  };
  for (const [key, value] of Object.entries(config)) {
    if (key === "vars" && isTable(value)) for (const [name, v] of Object.entries(value)) walk(v, [name]);
    else walk(value, [key]);
  }
  return warnings;
}

/** An env file's stand-in for a secret it does not hold: counted as set, its content not judged. */
export function isPlaceholderSecret(value: string): boolean {
  const v = value.trim();
  return (
    /^<[^<>]*>$/.test(v) ||
    /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(v) ||
    /^(?:x+|\*+|\.{3}|…|-|set|present|secret|value|changeme|change[-_ ]me|placeholder|todo|tbd|redacted|dummy|fake)$/i.test(
      v,
    ) ||
    /^(?:your[-_ ]|example|replace[-_ ]?me)/i.test(v)
  );
}
