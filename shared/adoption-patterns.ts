/**
 * Adoption patterns (docs/design.md, "Adopting existing entries"): the plan's own placeholder
 * syntax (./placeholders.ts) read backwards. `https://pr-{pr}.preview.example.com` names, for an
 * entry already on a list, the pull request whose plan would have written it.
 *
 * A pattern holds exactly one placeholder that names the pull request — `{pr}`, `{scope}` (its
 * `pr-<n>` value) or `{branch}` (= `{branchSlug}`, the head branch as a DNS label) — and may hold
 * `{environment}`, filled with the environment adopted into. Anything else (`{sha}`, `{vars.…}`, a
 * second naming placeholder) is refused: it has no single value to read back. The matcher builds
 * no regular expression from the pattern: an entry matches when it starts with the text before the
 * placeholder, ends with the text after it, and what is left between is a value the placeholder
 * can have (a pull request number, or a branch slug, which branchSlug leaves as it is). One
 * placeholder, one literal on each side: an entry matches a pattern one way or not at all.
 */
import { branchSlug, PLACEHOLDER } from "./placeholders";

export const MAX_PATTERNS = 10;
export const MAX_PATTERN_LENGTH = 500;

/** What a pattern's placeholder reads back: a pull request's number, or its head branch's slug. */
export type PatternKind = "pr" | "branch";

export interface AdoptionPattern {
  /** As the request wrote it. */
  source: string;
  kind: PatternKind;
  /** `{scope}` reads `pr-<n>`, `{pr}` reads `<n>`. */
  scopeForm: boolean;
  prefix: string;
  suffix: string;
}

export type PatternParse = { ok: true; pattern: AdoptionPattern } | { ok: false; problem: string };

const NAMING: Record<string, { kind: PatternKind; scopeForm: boolean }> = {
  pr: { kind: "pr", scopeForm: false },
  scope: { kind: "pr", scopeForm: true },
  branch: { kind: "branch", scopeForm: false },
  branchSlug: { kind: "branch", scopeForm: false },
};

/** One pattern, with `{environment}` filled; a problem names what is wrong with it. */
export function parsePattern(source: string, environment: string): PatternParse {
  let naming: { name: string; at: number } | null = null;
  let text = "";
  let last = 0;
  for (const m of source.matchAll(PLACEHOLDER)) {
    const name = m[1] as string;
    const at = m.index;
    text += source.slice(last, at);
    last = at + m[0].length;
    if (name === "environment") {
      text += environment;
      continue;
    }
    if (!(name in NAMING))
      return {
        ok: false,
        problem: `${m[0]} cannot be read back from an entry: use {pr}, {scope} or {branch}`,
      };
    if (naming !== null)
      return {
        ok: false,
        problem: `more than one placeholder names the pull request ({${naming.name}} and ${m[0]})`,
      };
    naming = { name, at: text.length };
  }
  text += source.slice(last);
  if (naming === null)
    return { ok: false, problem: "no {pr}, {scope} or {branch}: nothing names a pull request" };
  const { kind, scopeForm } = NAMING[naming.name] as { kind: PatternKind; scopeForm: boolean };
  const prefix = text.slice(0, naming.at);
  const suffix = text.slice(naming.at);
  if (prefix === "" && suffix === "") return { ok: false, problem: "a placeholder alone matches anything" };
  return { ok: true, pattern: { source, kind, scopeForm, prefix, suffix } };
}

/** What one pattern reads from an entry: the pull request's number, or a branch slug. */
export type PatternMatch = { pattern: string; pr: number } | { pattern: string; branch: string };

const PR_NUMBER = /^[1-9][0-9]{0,9}$/;

export function matchPattern(p: AdoptionPattern, key: string): PatternMatch | null {
  if (key.length <= p.prefix.length + p.suffix.length) return null;
  if (!key.startsWith(p.prefix) || !key.endsWith(p.suffix)) return null;
  const value = key.slice(p.prefix.length, key.length - p.suffix.length);
  if (p.kind === "branch") return branchSlug(value) === value ? { pattern: p.source, branch: value } : null;
  const digits = p.scopeForm ? (value.startsWith("pr-") ? value.slice(3) : "") : value;
  return PR_NUMBER.test(digits) ? { pattern: p.source, pr: Number(digits) } : null;
}

/** Every pattern an entry matches: none, one (its scope), or several (ambiguous: it stays foreign). */
export function matchEntry(patterns: readonly AdoptionPattern[], key: string): PatternMatch[] {
  return patterns.flatMap((p) => {
    const m = matchPattern(p, key);
    return m === null ? [] : [m];
  });
}
