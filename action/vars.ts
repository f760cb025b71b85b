/**
 * The Action's `vars:` input: `name=value` lines, sent as the run's `vars` object (plans use
 * `{vars.<name>}`; a var fills only item params — docs/design.md, "Plans and connections"). Names are
 * checked here with the service's own rule, so a typo fails the step before a token is asked for.
 */

/**
 * The service's var-name rule (docs/design.md, "Plans and connections"): a lowercase letter, then
 * up to 31 of [a-z0-9_].
 */
export const VAR_NAME_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;

export type VarsResult = { ok: true; vars: Record<string, string> } | { ok: false; problem: string };

/** Blank lines are skipped; spaces around a name and a value are trimmed; the first `=` splits. */
export function parseVars(text: string): VarsResult {
  const vars: Record<string, string> = {};
  const lines = text.split(/\r\n|\r|\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const at = `line ${index + 1}`;
    const equals = line.indexOf("=");
    if (equals <= 0) return { ok: false, problem: `${at}: write each var as name=value` };
    const name = line.slice(0, equals).trim();
    const value = line.slice(equals + 1).trim();
    if (!VAR_NAME_PATTERN.test(name)) {
      return {
        ok: false,
        problem: `${at}: "${name}" is not a var name (a lowercase letter, then lowercase letters, digits or _; at most 32 characters)`,
      };
    }
    if (Object.hasOwn(vars, name)) return { ok: false, problem: `${at}: "${name}" is given twice` };
    if (value === "") return { ok: false, problem: `${at}: "${name}" has no value` };
    vars[name] = value;
  }
  return { ok: true, vars };
}
