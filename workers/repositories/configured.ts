/**
 * Which configured repository (SPONSON_REPOSITORIES, read by the Worker's config: workers/config/) a
 * payload, a scope or a legacy receipt belongs to.
 */
import type { RepositoryConfig } from "../../shared/schemas/repository";

/**
 * A repository is served only when both its id and its name match: ids survive renames, names
 * are what operators read.
 */
export function configuredRepositoryOf(
  repositories: readonly RepositoryConfig[],
  id: number,
  fullName: string,
): RepositoryConfig | undefined {
  return repositories.find((r) => r.id === id && r.name.toLowerCase() === fullName.toLowerCase());
}

/**
 * The one repository legacy receipts (written before scopes carried a repository) belong to:
 * only when exactly one is configured. With several, nothing is guessed (docs/upgrading.md, "Scopes
 * per repository").
 */
export function legacyRepository(repositories: readonly RepositoryConfig[]): RepositoryConfig | undefined {
  return repositories.length === 1 ? repositories[0] : undefined;
}
