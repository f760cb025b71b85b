/**
 * The config report's checks of SPONSON_REPOSITORIES beyond its schema (docs/deploy.md, "Check the
 * configuration"). Names only, never a value.
 *
 * - A `webhookSecret` names the only Worker secret that repository's deliveries are checked
 *   against (workers/webhooks/delivery-secret.ts): unset, every delivery is refused, so its closed
 *   pull requests are never destroyed. A problem, when the secrets can be seen.
 * - A close destroys the scope in SPONSON_ENVIRONMENTS only (workers/webhooks/enqueue-destroys.ts):
 *   an environment `refEnvironments.pullRequest` grants outside it (and the repository's
 *   `environments` do not bound away) keeps what pull requests create there after they close.
 *   A warning: a deliberate grant is valid, but nobody should make it by accident.
 */
import type { RepositoryConfig } from "../../shared/schemas/repository";
import { environmentsForRef } from "../auth/ref-environments";
import type { ConfigProblem } from "./config-report";

type Vars = Readonly<Record<string, unknown>>;

export function webhookSecretProblems(
  repositories: readonly RepositoryConfig[],
  vars: Vars,
  secretsKnown: boolean,
): ConfigProblem[] {
  if (!secretsKnown) return [];
  return repositories.flatMap((repository, i) => {
    const name = repository.webhookSecret;
    if (name === undefined) return [];
    const value = vars[name];
    if (typeof value === "string" && value !== "") return [];
    return [
      {
        path: `SPONSON_REPOSITORIES.${i}.webhookSecret`,
        message: `repository ${repository.name}: Worker secret ${name} is not set (wrangler secret put ${name}); every webhook delivery of ${repository.name} is refused, so its closed pull requests keep their entries`,
      },
    ];
  });
}

export function pullRequestEnvironmentWarnings(
  repositories: readonly RepositoryConfig[],
  destroyEnvironments: readonly string[],
): ConfigProblem[] {
  return repositories.flatMap((repository, i) => {
    if (repository.refEnvironments?.pullRequest === undefined) return [];
    const { allowed } = environmentsForRef("pull-request", repository, destroyEnvironments);
    return (allowed ?? [])
      .filter((environment) => !destroyEnvironments.includes(environment))
      .map((environment) => ({
        path: `SPONSON_REPOSITORIES.${i}.refEnvironments.pullRequest`,
        message: `repository ${repository.name}: pull requests may act in environment ${environment}, but a close destroys scopes only in SPONSON_ENVIRONMENTS (${destroyEnvironments.join(", ")}): what they create in ${environment} is never destroyed on close`,
      }));
  });
}
