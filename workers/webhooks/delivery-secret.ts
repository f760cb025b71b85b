/**
 * Which secret a delivery must be signed with (docs/webhooks.md, "Secrets"). A repository that
 * names its own (`SPONSON_REPOSITORIES[].webhookSecret`, the name of a Worker secret) accepts
 * deliveries signed with that one only, so whoever holds the shared secret, or another repository's,
 * cannot move its scopes; every other delivery is checked against GITHUB_WEBHOOK_SECRET.
 *
 * The repository is read from the body before the signature is checked: that is only a choice of
 * key, and a delivery naming a repository it was not signed for fails the check like any forgery.
 *
 * With several repositories configured, the shared secret no longer signs for any of them
 * (`sharedSecretRefused`): whoever holds it, e.g. from any one repository's webhook settings, could
 * otherwise close every other repository's pull requests. A door trusts only what its sender
 * proves, and a secret every repository knows proves no repository.
 */
import type { RepositoryConfig } from "../../shared/schemas/repository";
import { configuredRepositoryOf } from "../repositories/configured";

/** The claimed repository of an unverified body, or null when it names none. */
function claimedRepository(body: Uint8Array): { id: number; fullName: string } | null {
  try {
    const payload = JSON.parse(new TextDecoder().decode(body)) as {
      repository?: { id?: unknown; full_name?: unknown };
    };
    const { id, full_name } = payload?.repository ?? {};
    return typeof id === "number" && typeof full_name === "string" ? { id, fullName: full_name } : null;
  } catch {
    return null;
  }
}

export interface DeliverySecret {
  /** The secret's value; "" when it is not set (every delivery is then refused). */
  value: string;
  /** The Worker secret it comes from, for the operator's log. */
  name: string;
  /**
   * The configured repository the shared secret would sign for while several are configured:
   * its deliveries are refused once their signature checked out (github-webhook.ts).
   */
  sharedFor?: RepositoryConfig;
}

export function deliverySecret(
  body: Uint8Array,
  repositories: readonly RepositoryConfig[],
  globalSecret: string | null,
  env: Readonly<Record<string, unknown>>,
): DeliverySecret {
  const claimed = claimedRepository(body);
  const repository = claimed && configuredRepositoryOf(repositories, claimed.id, claimed.fullName);
  if (repository?.webhookSecret !== undefined) {
    const value = env[repository.webhookSecret];
    return { value: typeof value === "string" ? value : "", name: repository.webhookSecret };
  }
  const shared = { value: globalSecret ?? "", name: "GITHUB_WEBHOOK_SECRET" };
  return repository && sharedSecretRefused(repositories) ? { ...shared, sharedFor: repository } : shared;
}

/**
 * Whether a configured repository without a secret of its own is refused its deliveries: once two
 * repositories are configured, each needs its own (the config report says so too).
 */
export function sharedSecretRefused(repositories: readonly RepositoryConfig[]): boolean {
  return repositories.length > 1;
}
