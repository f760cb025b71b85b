/**
 * The config report's word on GITHUB_WEBHOOK_SECRET once several repositories are configured
 * (docs/security.md, "Webhook secrets"). Whoever holds a secret every repository's webhook is
 * signed with can sign a `pull_request closed` for any of them, and a close destroys that scope's
 * entries; so with two or more repositories each needs its own `webhookSecret`, and the receiver
 * refuses a delivery signed with the shared one (workers/webhooks/delivery-secret.ts). A problem
 * at each repository that has none: the configuration's shape, whether or not secrets are seen.
 */
import type { RepositoryConfig } from "../../shared/schemas/repository";
import { sharedSecretRefused } from "../webhooks/delivery-secret";
import type { ConfigProblem } from "./config-report";

export function sharedWebhookSecretProblems(repositories: readonly RepositoryConfig[]): ConfigProblem[] {
  if (!sharedSecretRefused(repositories)) return [];
  return repositories.flatMap((repository, i) =>
    repository.webhookSecret !== undefined
      ? []
      : [
          {
            path: `SPONSON_REPOSITORIES.${i}.webhookSecret`,
            message: `repository ${repository.name} has no webhook secret of its own: with ${repositories.length} repositories configured, GITHUB_WEBHOOK_SECRET would let whoever holds it close every repository's pull requests, so ${repository.name}'s deliveries signed with it are refused (403 webhook.shared-secret) and its closed pull requests keep their entries; name a Worker secret of its own here (wrangler secret put WEBHOOK_SECRET_…) and set it as that repository's webhook secret on GitHub`,
          },
        ],
  );
}

/** Whether some configured repository's deliveries are checked against GITHUB_WEBHOOK_SECRET. */
export function sharedWebhookSecretNeeded(repositories: readonly RepositoryConfig[]): boolean {
  return repositories.length === 0 || repositories.some((r) => r.webhookSecret === undefined);
}
