/**
 * Which repository a scope request acts on (a scope belongs to one repository; `pr-5` of two
 * repositories are two scopes). Pure: caller, the `?repository=owner/name` query and the
 * configured repositories in, one configured repository out, or a refusal naming the fix.
 *
 * 1. A GitHub Actions job acts for its own repository (verified by id and name at authentication);
 *    a query naming another is refused 403 `github.repository`.
 * 2. A `ci` or `viewer` service token with a `repository` claim acts for (and reads) that repository
 *    only; a query naming another is refused 403 `service.repository`. Admin tokens, and tokens
 *    without the claim, take the query.
 * 3. Without a query, the one configured repository when there is exactly one (single-repository
 *    deployments name nothing).
 * 4. Otherwise 400 VALIDATION saying how to name it. A query naming a repository that is not
 *    configured is 404 NOT_FOUND.
 */
import { SponsonError } from "../../shared/errors";
import {
  type RepositoryConfig,
  repositoryNamePattern,
  sameRepositoryName,
} from "../../shared/schemas/repository";
import type { Caller } from "./caller";

export interface RepositoryQuestion {
  caller: Caller;
  /** The `repository` query parameter, if any. */
  requested: string | undefined;
  repositories: readonly RepositoryConfig[];
}

const NAMES_LISTED = 10;

function configuredNames(repositories: readonly RepositoryConfig[]): string {
  const names = repositories.slice(0, NAMES_LISTED).map((r) => r.name);
  if (repositories.length > NAMES_LISTED) names.push("…");
  return names.join(", ");
}

/**
 * The repository the caller's credential is bound to, or null when it may name any: a GitHub job's
 * own, or a ci or viewer service token's `repository` claim (admin tokens are never bound).
 */
export function boundRepository(
  caller: Caller,
  repositories: readonly RepositoryConfig[],
): { repository: RepositoryConfig; rule: string } | null {
  if (caller.kind === "github") {
    const repository = repositories.find((r) => String(r.id) === caller.repositoryId);
    if (repository === undefined) {
      throw new SponsonError("FORBIDDEN", `repository ${caller.repository} is not configured`, {
        rule: "github.repository",
      });
    }
    return { repository, rule: "github.repository" };
  }
  if (caller.role === "admin" || caller.repository === undefined) return null;
  const claimed = caller.repository;
  const repository = repositories.find((r) => sameRepositoryName(r.name, claimed));
  if (repository === undefined) {
    throw new SponsonError("FORBIDDEN", `the token's repository ${claimed} is not configured`, {
      rule: "service.repository",
    });
  }
  return { repository, rule: "service.repository" };
}

function checkRequested(requested: string | undefined): void {
  if (requested !== undefined && !repositoryNamePattern.test(requested)) {
    throw new SponsonError("VALIDATION", "?repository= must name a repository as owner/name, e.g. acme/web");
  }
}

/** What the caller is bound to, or what it named; undefined when neither says. */
function namedRepository(question: RepositoryQuestion): RepositoryConfig | undefined {
  const { caller, requested, repositories } = question;
  checkRequested(requested);
  const bound = boundRepository(caller, repositories);
  if (bound !== null) {
    if (requested !== undefined && !sameRepositoryName(requested, bound.repository.name)) {
      throw new SponsonError(
        "FORBIDDEN",
        `this token acts for repository ${bound.repository.name} only; ?repository=${requested} names another`,
        { rule: bound.rule, repository: bound.repository.name, requested },
      );
    }
    return bound.repository;
  }
  if (requested === undefined) return undefined;
  const found = repositories.find((r) => sameRepositoryName(r.name, requested));
  if (found === undefined) {
    throw new SponsonError(
      "NOT_FOUND",
      `repository ${requested} is not configured (configured: ${configuredNames(repositories) || "none"})`,
      { requested },
    );
  }
  return found;
}

/** The one repository a scope action (apply, preview, destroy, rollback, ledger) acts on. */
export function resolveRepository(question: RepositoryQuestion): RepositoryConfig {
  const named = namedRepository(question);
  if (named !== undefined) return named;
  const { repositories } = question;
  if (repositories.length === 1 && repositories[0]) return repositories[0];
  if (repositories.length === 0) {
    throw new SponsonError(
      "VALIDATION",
      'no repository is configured: scopes belong to a repository; set SPONSON_REPOSITORIES to [{ "name": "owner/name", "id": <GitHub repository id> }]',
    );
  }
  throw new SponsonError(
    "VALIDATION",
    `name the repository with ?repository=owner/name (configured: ${configuredNames(repositories)})`,
  );
}

/** For listings: the repository to list, or null for every repository the service has receipts of. */
export function resolveRepositoryFilter(question: RepositoryQuestion): RepositoryConfig | null {
  const named = namedRepository(question);
  if (named !== undefined) return named;
  return question.repositories.length === 1 ? (question.repositories[0] ?? null) : null;
}
