/**
 * What one dashboard page shows (docs/operations.md, "The dashboard"): a repository, an environment,
 * a scope prefix and a page of the scope list, from the query string. A caller bound to one
 * repository (a GitHub job's token, a ci token with a `repository` claim) sees that repository only,
 * whatever the query says: its filter is forced, never widened. Pure.
 */
import { SponsonError } from "../../shared/errors";
import {
  type RepositoryConfig,
  type RepositoryRef,
  sameRepositoryName,
} from "../../shared/schemas/repository";
import type { Caller } from "../auth/caller";
import { boundRepository } from "../auth/resolve-repository";

export const SCOPES_PER_PAGE = 30;

export interface ViewFilter {
  repository: RepositoryRef | null;
  environment: string | null;
  /** Scopes whose name starts with this, e.g. `pr-` or `branch-feat`. */
  scope: string | null;
  /** 1-based. */
  page: number;
  /** True when the caller may not see any other repository. */
  bound: boolean;
}

export interface ViewQuery {
  repository?: string | undefined;
  environment?: string | undefined;
  scope?: string | undefined;
  page?: string | undefined;
}

/**
 * The repository the caller's credential is bound to, or null when it may see all: the same binding
 * every read is limited to (workers/auth/resolve-repository.ts). A binding to a repository no longer
 * configured sees nothing (id 0 matches no scope).
 */
export function boundRepositoryOf(
  caller: Caller,
  repositories: readonly RepositoryConfig[],
): RepositoryRef | null {
  try {
    const bound = boundRepository(caller, repositories);
    return bound ? { id: bound.repository.id, name: bound.repository.name } : null;
  } catch {
    return { id: 0, name: caller.kind === "github" ? caller.repository : (caller.repository ?? "") };
  }
}

export function viewFilter(
  caller: Caller,
  query: ViewQuery,
  repositories: readonly RepositoryConfig[],
): ViewFilter {
  const bound = boundRepositoryOf(caller, repositories);
  const page = Math.max(1, Math.min(10_000, Number.parseInt(query.page ?? "1", 10) || 1));
  const environment = query.environment?.trim() || null;
  const scope = query.scope?.trim() || null;
  const named = query.repository?.trim() || null;
  let repository: RepositoryRef | null = bound;
  if (named !== null && bound === null) {
    const found = repositories.find((r) => sameRepositoryName(r.name, named));
    if (!found) throw new SponsonError("NOT_FOUND", `repository ${named} is not configured`);
    repository = { id: found.id, name: found.name };
  }
  return { repository, environment, scope, page, bound: bound !== null };
}

/** Whether the reader narrowed the view (a bound caller's forced repository is not their filter). */
export function isFiltered(filter: ViewFilter): boolean {
  return (
    filter.environment !== null || filter.scope !== null || (filter.repository !== null && !filter.bound)
  );
}

/** Whether a scope of `repositoryId`/`environment`/`scope` is on this view (any page). */
export function inView(
  filter: ViewFilter,
  s: { repositoryId: number; environment: string; scope: string },
): boolean {
  return (
    (filter.repository === null || filter.repository.id === s.repositoryId) &&
    (filter.environment === null || filter.environment === s.environment) &&
    (filter.scope === null || s.scope.startsWith(filter.scope))
  );
}

/** The query string that shows `filter` at `page` (for links and the live fragment). */
export function viewQuery(filter: ViewFilter, page = filter.page): string {
  const q = new URLSearchParams();
  if (filter.repository && !filter.bound) q.set("repository", filter.repository.name);
  if (filter.environment) q.set("environment", filter.environment);
  if (filter.scope) q.set("scope", filter.scope);
  if (page > 1) q.set("page", String(page));
  const text = q.toString();
  return text === "" ? "" : `?${text}`;
}
