/**
 * `npm start`: the demo workload identity pool provider trusts the local issuer
 * (`https://sponson.localhost`, and the runtime tests' one: ../demo-issuers.ts) for the subjects of the four federated example connections, and
 * each of their principals may impersonate the demo service account (../google/demo.ts), which
 * already administers the demo bucket, Identity Platform project, OAuth client reCAPTCHA key and API key.
 * Storage key on each host: `demo:provisioned` → true.
 */
import { DEMO_ISSUERS } from "../demo-issuers";
import type { EmulatorState } from "../emulator";
import { DEMO_GOOGLE_ACCOUNT } from "../google/demo";
import {
  googleStsKeys,
  principalOf,
  type ServiceAccountPolicy,
  WORKLOAD_IDENTITY_USER,
  type WorkloadIdentityProvider,
} from "./state";

export const DEMO_WORKLOAD_IDENTITY_PROVIDER =
  "//iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/sponson-local/providers/sponson-local";
export const DEMO_ISSUER = DEMO_ISSUERS[0];
const DEMO_SUBJECTS = [
  "gcs-federated",
  "firebase-federated",
  "google-federated",
  "recaptcha-federated",
  "googleapikey-federated",
].map((name) => `sponson:connection:${name}`);

export function provisionDemoProvider(audience: string, state: EmulatorState): void {
  if (audience !== DEMO_WORKLOAD_IDENTITY_PROVIDER || state.get<boolean>("demo:provisioned")) return;
  state.put<WorkloadIdentityProvider>(googleStsKeys.provider(audience), {
    issuer: DEMO_ISSUER,
    issuers: [...DEMO_ISSUERS],
    subjects: DEMO_SUBJECTS,
  });
  state.put("demo:provisioned", true);
}

export function provisionDemoPolicy(serviceAccount: string, state: EmulatorState): void {
  if (serviceAccount !== DEMO_GOOGLE_ACCOUNT || state.get<boolean>("demo:provisioned")) return;
  state.put<ServiceAccountPolicy>(googleStsKeys.policy(serviceAccount), {
    bindings: {
      [WORKLOAD_IDENTITY_USER]: DEMO_SUBJECTS.map((s) => principalOf(DEMO_WORKLOAD_IDENTITY_PROVIDER, s)),
    },
  });
  state.put("demo:provisioned", true);
}
