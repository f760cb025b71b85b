/**
 * `npm start`: the Identity Platform project `sponson-demo` exists on first use, edited by the demo
 * Google service account (../google/demo.ts); the GCS demo bucket is ../gcs/demo.ts.
 * Storage key: `demo:provisioned` → true.
 */
import type { EmulatorState } from "../emulator";
import { DEMO_GOOGLE_ACCOUNT } from "../google/demo";
import { type IdentityProject, identityKeys } from "./state";

export { DEMO_GOOGLE_ACCOUNT };
export const DEMO_FIREBASE_PROJECT = "sponson-demo";

export function provisionDemoIdentityProject(project: string, state: EmulatorState): void {
  if (project !== DEMO_FIREBASE_PROJECT || state.get<boolean>("demo:provisioned")) return;
  state.put<IdentityProject>(identityKeys.project(DEMO_FIREBASE_PROJECT), {
    members: { [DEMO_GOOGLE_ACCOUNT]: "editor" },
    config: { authorizedDomains: ["localhost", `${DEMO_FIREBASE_PROJECT}.firebaseapp.com`] },
  });
  state.put("demo:provisioned", true);
}
