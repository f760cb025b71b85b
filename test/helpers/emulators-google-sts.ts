/** Workload identity pool providers (sts.googleapis.com) and service-account policies (iamcredentials). */
import {
  googleStsKeys,
  principalOf,
  type ServiceAccountPolicy,
  WORKLOAD_IDENTITY_USER,
  type WorkloadIdentityProvider,
} from "../../dev/emulators/google-sts/state";
import { emulatorStub } from "./emulators";

export const STS_HOST = "sts.googleapis.com";
export const IAM_CREDENTIALS_HOST = "iamcredentials.googleapis.com";

export interface FederatedGoogle {
  /** The pool provider's full resource name: the connection's `federated.audience`. */
  audience: string;
  serviceAccount: string;
}

/**
 * A pool provider trusting `issuer`, and a service account the given subjects' principals may
 * impersonate (roles/iam.workloadIdentityUser), both new.
 */
export async function seedFederatedGoogle(
  issuer: string,
  impersonators: string[],
  provider: Omit<WorkloadIdentityProvider, "issuer"> = {},
): Promise<FederatedGoogle> {
  const id = crypto.randomUUID().slice(0, 8);
  const number = String(100_000_000 + Math.floor(Math.random() * 800_000_000));
  const audience = `//iam.googleapis.com/projects/${number}/locations/global/workloadIdentityPools/sponson/providers/svc-${id}`;
  const serviceAccount = `sponson-fed-${id}@sponson-tests.iam.gserviceaccount.com`;
  await emulatorStub(STS_HOST).seed({
    [googleStsKeys.provider(audience)]: { issuer, ...provider } satisfies WorkloadIdentityProvider,
  });
  const policy: ServiceAccountPolicy = {
    bindings: { [WORKLOAD_IDENTITY_USER]: impersonators.map((s) => principalOf(audience, s)) },
  };
  await emulatorStub(IAM_CREDENTIALS_HOST).seed({ [googleStsKeys.policy(serviceAccount)]: policy });
  return { audience, serviceAccount };
}

/** POST sts.googleapis.com/v1/token as Google's client libraries send it (RFC 8693). */
export async function stsExchange(audience: string, subjectToken: string) {
  const res = await emulatorStub(STS_HOST).fetch(`https://${STS_HOST}/v1/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      audience,
      scope: "https://www.googleapis.com/auth/cloud-platform",
      requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
      subject_token: subjectToken,
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
    }).toString(),
  });
  return {
    status: res.status,
    body: (await res.json()) as { error?: string; error_description?: string; access_token?: string },
  };
}
