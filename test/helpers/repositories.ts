/**
 * The repository the test configuration serves (vitest.config.ts: SPONSON_REPOSITORIES, the one in
 * @octokit/webhooks-examples' payloads). With exactly one configured, scope endpoints need no
 * `?repository=`, and every scope the suites touch belongs to it.
 */
import type { RepositoryRef } from "../../shared/schemas/repository";

export const DEFAULT_REPOSITORY: RepositoryRef = { id: 186853002, name: "Codertocat/Hello-World" };

/** The address of one of the default repository's scopes (receipt store, engine requests). */
export function scopeAddress(environment: string, scope: string, repository = DEFAULT_REPOSITORY) {
  return { repository, environment, scope };
}
