/**
 * Workload Identity Federation as the emulators keep it. sts.googleapis.com and
 * iamcredentials.googleapis.com are separate emulator objects that share no storage:
 *   on sts:            provider:<//iam.googleapis.com/projects/N/…/providers/P> → WorkloadIdentityProvider
 *   on iamcredentials: policy:<service account email> → ServiceAccountPolicy
 */

export interface WorkloadIdentityProvider {
  /** The OIDC issuer the provider trusts (`--issuer-uri`). */
  issuer: string;
  /**
   * Dev-only: Google lets a provider trust one issuer; the demo provider also trusts these
   * (../demo-issuers.ts) so the example runs under `npm start` and in the runtime tests.
   */
  issuers?: string[];
  /** `--allowed-audiences`; absent: the provider's full resource name, with or without `https:`. */
  allowedAudiences?: string[];
  /** An attribute condition on `assertion.sub`: only these subjects are let in. Absent: any. */
  subjects?: string[];
  disabled?: boolean;
}

/** The service account's IAM policy: role → members (`principal://…`, `serviceAccount:…`). */
export interface ServiceAccountPolicy {
  bindings: Record<string, string[]>;
}

export const WORKLOAD_IDENTITY_USER = "roles/iam.workloadIdentityUser";

export const googleStsKeys = {
  provider: (resource: string) => `provider:${resource}`,
  policy: (email: string) => `policy:${email}`,
} as const;

/** `//iam.googleapis.com/projects/<n>/locations/global/workloadIdentityPools/<pool>/providers/<p>` */
export const PROVIDER_RESOURCE =
  /^\/\/iam\.googleapis\.com\/projects\/(\d+)\/locations\/global\/workloadIdentityPools\/([a-z0-9-]{4,32})\/providers\/([a-z0-9-]{4,32})$/;

/** The federated principal STS maps `google.subject = assertion.sub` to. */
export function principalOf(providerResource: string, subject: string): string {
  const [, project, pool] = PROVIDER_RESOURCE.exec(providerResource) ?? [];
  return `principal://iam.googleapis.com/projects/${project}/locations/global/workloadIdentityPools/${pool}/subject/${subject}`;
}
