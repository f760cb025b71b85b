/**
 * `npm start`: the demo Google service account and what it may edit exist on first use — the
 * Identity Platform project `sponson-demo` and (workers/emulators/gcs/demo.ts) the bucket
 * `sponson-demo-assets`. No key pair is committed: scripts/start.mjs generates a throwaway RSA key
 * for the account at each start and passes the key file as GOOGLE_SERVICE_ACCOUNT_KEY; the token
 * endpoint cannot know that key, so for this one account it accepts any well-formed RS256
 * assertion (right audience, issuer, scope and lifetime) without checking the signature. Every
 * other account's signature is verified against its seeded public key.
 * Storage key (identitytoolkit host): `demo:provisioned` → true.
 */
import type { EmulatorState } from "../emulator";
import { type IdentityProject, identityKeys } from "./identity-toolkit";

export const DEMO_GOOGLE_ACCOUNT = "sponson-demo@sponson-demo.iam.gserviceaccount.com";
export const DEMO_FIREBASE_PROJECT = "sponson-demo";

export function provisionDemoIdentityProject(pathname: string, state: EmulatorState): void {
  if (
    !pathname.startsWith(`/admin/v2/projects/${DEMO_FIREBASE_PROJECT}/`) ||
    state.get<boolean>("demo:provisioned")
  ) {
    return;
  }
  state.put<IdentityProject>(identityKeys.project(DEMO_FIREBASE_PROJECT), {
    members: { [DEMO_GOOGLE_ACCOUNT]: "editor" },
    config: { authorizedDomains: ["localhost", `${DEMO_FIREBASE_PROJECT}.firebaseapp.com`] },
  });
  state.put("demo:provisioned", true);
}
