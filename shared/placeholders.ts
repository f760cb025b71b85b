/**
 * Plan placeholders (docs/adapters.md, "Plans"), resolved in each line's params before the
 * line is checked. Shared by the service (workers/engine/plan/resolve-plan.ts) and the CLI's offline
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

/**
 * `{name}` (letters only) or `{vars.<name>}`, so JSON-ish braces in a value (`{"a":1}`) are not
 * taken for one. A `{vars.…}` whose name breaks VAR_NAME (`{vars.URL}`) is still matched, so it is
 * refused by name rather than written as text.
 */
export const PLACEHOLDER = /\{([A-Za-z]+|vars\.[A-Za-z0-9_]*)\}/g;

/**
 * Values from CI (docs/design.md, "Plans and connections"): a request's `vars` fill
 * `{vars.<name>}` in a line's item param only (the URL, origin or domain written), never a param
 * that names the provider object, a connection or an op.
 */
export const VAR_PREFIX = "vars.";
export const VAR_NAME = /^[a-z][a-z0-9_]{0,31}$/;
export const MAX_VARS = 32;
/** As long as a line's param may be: a var is at most all of one. */
export const MAX_VAR_VALUE_LENGTH = 2_000;

/** The var a placeholder's name stands for (`vars.url` → `url`), or null for a plain placeholder. */
export function varOf(name: string): string | null {
  return name.startsWith(VAR_PREFIX) ? name.slice(VAR_PREFIX.length) : null;
}

/** The well-formed var names `text` uses, in order of first use. */
export function varsUsedIn(text: string): string[] {
  const names: string[] = [];
  for (const [, name] of text.matchAll(PLACEHOLDER)) {
    const v = varOf(name as string);
    if (v !== null && VAR_NAME.test(v) && !names.includes(v)) names.push(v);
  }
  return names;
}

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

/**
 * What a platform says of the deployment a platform connection's plan is applied for
 * (docs/design.md, "The platform door"): `{deploymentUrl}` / `{deploymentHost}` the deployment's own
 * URL, `{branchUrl}` / `{branchHost}` its stable branch alias (Vercel's `-git-` alias, Netlify's
 * `deploy-preview-<n>--` or `<branch>--` URL), `{previewUrl}` / `{previewHost}` the one the
 * connection's `url` setting picks. Like vars they fill only a line's item param: what is written,
 * never which object it is written to.
 */
export const PLATFORM_PLACEHOLDER_NAMES = [
  "deploymentUrl",
  "deploymentHost",
  "branchUrl",
  "branchHost",
  "previewUrl",
  "previewHost",
] as const;
export type PlatformPlaceholderName = (typeof PLATFORM_PLACEHOLDER_NAMES)[number];
/** A deployment's values; one the platform did not say (no branch alias yet) is absent. */
export type PlatformValues = Partial<Record<PlatformPlaceholderName, string>>;

export function isPlatformPlaceholder(name: string): name is PlatformPlaceholderName {
  return (PLATFORM_PLACEHOLDER_NAMES as readonly string[]).includes(name);
}

export interface PlaceholderContext {
  environment: string;
  scope: string;
  /** The repository's default branch: what scope `main` stands for. */
  defaultBranch?: string;
  /** The commit the run is for (40 hex, as GitHub's GITHUB_SHA). */
  sha?: string;
  /**
   * The pull request's head branch, for `{branch}` / `{branchSlug}` on a `pr-<n>` scope: from the
   * verified `head_ref` claim, or a service token's declared provenance. Ignored on other scopes.
   */
  headBranch?: string;
  /** The request's `vars`, for `{vars.<name>}` in item params. */
  vars?: Readonly<Record<string, string>>;
  /** A platform connection's deployment (PLATFORM_PLACEHOLDER_NAMES); absent for every other run. */
  platform?: PlatformValues;
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
