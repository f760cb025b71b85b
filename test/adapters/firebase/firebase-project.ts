/** A fresh emulated Identity Platform project, a service account on it, and an adapter context. */
import { firebaseAdapter } from "../../../workers/adapters/firebase";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import {
  freshGoogleProject,
  googleServiceAccount,
  identityProject,
  seedIdentityProject,
} from "../../helpers/emulators-firebase";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const authorizedDomain = firebaseAdapter.ops[0] as OpSpec;

export async function firebaseProject(domains: string[], failure?: SetupFailure) {
  const project = freshGoogleProject();
  const account = await googleServiceAccount(failure !== "unauthenticated");
  await seedIdentityProject(project, {
    members: { [account.email]: failure === "forbidden" ? "viewer" : "editor" },
    ...(failure === "missing"
      ? {}
      : { config: { authorizedDomains: domains, signIn: { email: { enabled: true } } } }),
  });
  const h = harness(firebaseAdapter, { type: "firebase", serviceAccountKey: account.keyJson }, [
    account.keyJson,
  ]);
  const domainsNow = async () => (await identityProject(project))?.config?.authorizedDomains ?? [];
  return { ...h, project, account, domainsNow };
}
