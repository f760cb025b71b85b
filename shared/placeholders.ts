/**
 * Plan placeholders (README, "Plans and connections"), resolved in each line's params before the
 * line is checked. Shared by the service (workers/engine/resolve-plan.ts) and the CLI's offline
 * `plan check`, so both know the same names.
 *
 * Branch names become DNS labels because their usual place is a host name
 * (`https://{branch}.preview.example.com`), where `/`, `_` and capitals are not allowed (RFC 1035
 * §2.3.1, one label at most 63 octets). The rule, `branchSlug`: lowercase; every run of characters
 * other than `a-z 0-9` becomes one `-`; no `-` at either end; cut to 63 characters (and a `-` the
 * cut leaves at the end dropped). `Feature/Login_Page` → `feature-login-page`.
 */

export const PLACEHOLDER_NAMES = [
  "environment",
  "scope",
  "pr",
  "branch",
  "branchSlug",
  "sha",
  "shortSha",
] as const;
export type PlaceholderName = (typeof PLACEHOLDER_NAMES)[number];

/** `{name}`: letters only, so JSON-ish braces in a value (`{"a":1}`) are not taken for one. */
export const PLACEHOLDER = /\{([A-Za-z]+)\}/g;

const DNS_LABEL_MAX = 63;
const SHORT_SHA_LENGTH = 7;

/** The branch as a DNS label (the rule above); "" when nothing of it survives. */
export function branchSlug(branch: string): string {
  const slug = branch
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug.slice(0, DNS_LABEL_MAX).replace(/-+$/, "");
}

export interface PlaceholderContext {
  environment: string;
  scope: string;
  /** The repository's default branch: what scope `main` stands for. */
  defaultBranch?: string;
  /** The commit the run is for (40 hex, as GitHub's GITHUB_SHA). */
  sha?: string;
  /**
   * A pull request's head branch: what `{branch}` stands for on scope `pr-<n>` (the verified
   * `head_ref` claim, or a service token's declared provenance; docs/design.md, "Provenance").
   */
  headBranch?: string;
}

/** Each placeholder's value in this context; undefined where it has none (e.g. `{pr}` on main). */
export function placeholderValues(ctx: PlaceholderContext): Record<PlaceholderName, string | undefined> {
  const { environment, scope } = ctx;
  const branchName = scope.startsWith("branch-")
    ? scope.slice("branch-".length)
    : scope === "main"
      ? (ctx.defaultBranch ?? "main")
      : scope.startsWith("pr-")
        ? ctx.headBranch
        : undefined;
  const slug = branchName === undefined ? undefined : branchSlug(branchName) || undefined;
  return {
    environment,
    scope,
    pr: scope.startsWith("pr-") ? scope.slice(3) : undefined,
    branch: slug,
    branchSlug: slug,
    sha: ctx.sha,
    shortSha: ctx.sha?.slice(0, SHORT_SHA_LENGTH),
  };
}

/** A commit id as requests carry it: full 40-hex (or 64-hex for SHA-256 repositories), lowercase. */
export const SHA_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
