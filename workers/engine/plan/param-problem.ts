/**
 * What a plan's problem says (docs/design.md, "Plans and connections"), the same for the service's
 * 400 and the CLI's offline `plan check`. A param the op refuses is shown as it was after its
 * placeholders were filled, with what each placeholder stood for: the usual culprit is a value from
 * CI (`{vars.url}`), which the plan's author never sees — deploy steps print URLs with a trailing
 * slash, a path, or a scheme where a bare host goes. Then a fix, offered only when the op's own
 * params schema accepts it. Pure: no clock, no I/O.
 */
import type { z } from "zod";
import { PLACEHOLDER, varOf } from "../../../shared/placeholders";

/** One thing wrong with a plan, found before any lease. `index` orders the problems as the plan's lines. */
export interface PlanProblem {
  /** The line's id; null for a problem of the plan as a whole. */
  line: string | null;
  index: number;
  /** Where, as the request body names it: `lines.0.params.origin`. */
  path: string;
  message: string;
  /** The var this problem is about, when the request does not define it. */
  var?: string;
}

/** How a value may appear in an answer: quoted, cut when long, or not at all (a registered secret). */
export type ShowValue = (value: string) => string;

const SHOWN_MAX = 200;

export const showValue: ShowValue = (value) =>
  JSON.stringify(value.length > SHOWN_MAX ? `${value.slice(0, SHOWN_MAX)}…` : value);

/** A candidate fix: what to tell the author, and the value it makes (null: it does not apply). */
interface Fix {
  say: string;
  make(value: string): string | null;
}

function parsedUrl(value: string): URL | null {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) && URL.canParse(value) ? new URL(value) : null;
}

/** In the order they are tried: the smallest change first. */
const FIXES: readonly Fix[] = [
  { say: "remove the spaces around it", make: (v) => (v.trim() !== v && v.trim() !== "" ? v.trim() : null) },
  {
    say: "remove the trailing slash",
    make: (v) => (/[^/]\/+$/.test(v) ? v.replace(/\/+$/, "") : null),
  },
  {
    say: "an origin has no path",
    make: (v) => {
      const url = parsedUrl(v);
      return url && url.origin !== "null" && url.origin !== v ? url.origin : null;
    },
  },
  {
    say: "write the host alone",
    make: (v) => {
      const url = parsedUrl(v.trim());
      return url?.host ? url.host : null;
    },
  },
  { say: "add the scheme", make: (v) => (/^[a-z][a-z0-9+.-]*:/i.test(v) ? null : `https://${v.trim()}`) },
];

/** The first fix the op's params schema accepts for `key`, or null. */
function fixFor(
  schema: z.ZodType,
  params: Record<string, string>,
  key: string,
): { say: string; value: string } | null {
  const value = params[key] ?? "";
  for (const fix of FIXES) {
    const candidate = fix.make(value);
    if (candidate === null) continue;
    const checked = schema.safeParse({ ...params, [key]: candidate });
    if (checked.success || !checked.error.issues.some((i) => i.path[0] === key)) {
      return { say: fix.say, value: candidate };
    }
  }
  return null;
}

/** `{vars.url} = "https://x.vercel.app/", {pr} = "1"`: what each placeholder of `template` stood for. */
function fillsOf(template: string, fill: (name: string) => string | undefined, show: ShowValue): string {
  const seen = new Set<string>();
  const said: string[] = [];
  for (const [whole, name] of template.matchAll(PLACEHOLDER)) {
    if (seen.has(whole)) continue;
    seen.add(whole);
    const value = fill(name as string);
    if (value !== undefined) said.push(`${whole} = ${show(value)}`);
  }
  return said.join(", ");
}

export interface ParamIssue {
  schema: z.ZodType;
  /** The line's params after filling. */
  params: Record<string, string>;
  key: string;
  /** The param as the plan wrote it. */
  template: string;
  /** What the schema says it expected. */
  expected: string;
  /** What a placeholder's name (`pr`, `vars.url`) stood for. */
  fill(name: string): string | undefined;
  show: ShowValue;
}

/**
 * `"https://x.vercel.app/" (from {vars.url} = "https://x.vercel.app/") is not an origin: …;
 * remove the trailing slash: "https://x.vercel.app" (--var url="https://x.vercel.app")`.
 */
export function paramIssueText(issue: ParamIssue): string {
  const value = issue.params[issue.key] ?? "";
  const fills = fillsOf(issue.template, issue.fill, issue.show);
  const expected = /^(a|an|the|one) /i.test(issue.expected)
    ? `is not ${issue.expected}`
    : `: ${issue.expected}`;
  let text = `${issue.show(value)}${fills ? ` (from ${fills})` : ""} ${expected}`.replace(/ :/, ":");
  const fix = fixFor(issue.schema, issue.params, issue.key);
  if (fix === null) return text;
  text += `; ${fix.say}: ${issue.show(fix.value)}`;
  // The whole value is one var: the fix is made where CI sets it.
  const whole = /^\{(vars\.[a-z][a-z0-9_]*)\}$/.exec(issue.template)?.[1];
  const name = whole === undefined ? null : varOf(whole);
  return name === null ? text : `${text} (--var ${name}=${issue.show(fix.value)})`;
}

export interface FilledParam {
  /** The param as the plan wrote it. */
  template: string;
  /** What a placeholder's name (`pr`, `vars.url`) stood for; undefined when it had no value. */
  fill(name: string): string | undefined;
  show: ShowValue;
}

/** `template` with each placeholder filled, `changed` standing in for `name`'s value. */
function filledWith(f: FilledParam, changed?: { name: string; value: string }): string | null {
  let unfilled = false;
  const text = f.template.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = name === changed?.name ? changed.value : f.fill(name);
    if (value === undefined) unfilled = true;
    return value ?? "";
  });
  return unfilled ? null : text;
}

/**
 * A placeholder's value ending in `/` before the plan's own `/`: `{vars.url}/callback` with the
 * deploy step's `https://x.vercel.app/` makes `https://x.vercel.app//callback`, an empty path
 * segment no provider refuses and no redirect ever matches (they compare exactly). Only a `//` a
 * value made is said; one the plan writes itself is its own. Null when there is none.
 */
export function emptySegmentText(f: FilledParam): string | null {
  const value = filledWith(f);
  if (value === null) return null;
  const scheme = value.indexOf("://");
  if (scheme < 0) return null;
  for (const match of f.template.matchAll(PLACEHOLDER)) {
    const [whole, name] = match as unknown as [string, string];
    const end = match.index + whole.length;
    const filled = f.fill(name) ?? "";
    if (!filled.endsWith("/") || f.template[end] !== "/") continue;
    // Where the value's last `/` lands: past the scheme's own `//` (a value `https:/` before the
    // plan's `/x.app` made no segment).
    const slash = (filledWith({ ...f, template: f.template.slice(0, end) }) ?? "").length - 1;
    if (slash <= scheme + 2) continue;
    const trimmed = filled.replace(/\/+$/, "");
    const fixed = filledWith(f, { name, value: trimmed }) ?? "";
    const fills = fillsOf(f.template, f.fill, f.show);
    const v = varOf(name);
    return (
      `${f.show(value)} (from ${fills}) has an empty path segment (\`//\`); remove the trailing slash: ` +
      `${f.show(fixed)}${v === null ? "" : ` (--var ${v}=${f.show(trimmed)})`}`
    );
  }
  return null;
}

/** Every problem at once, in the plan's order (a problem of the whole plan first). */
export function inLineOrder(problems: readonly PlanProblem[]): PlanProblem[] {
  return problems
    .map((p, at) => ({ p, at }))
    .sort((a, b) => a.p.index - b.p.index || a.at - b.at)
    .map(({ p }) => p);
}
