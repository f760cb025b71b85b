/** A fresh emulated project with one IAM OAuth client, a service account on it, and an adapter context. */
import { googleAdapter } from "../../../workers/adapters/google";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import { freshGoogleProject, googleServiceAccount } from "../../helpers/emulators-firebase";
import { iamClient, iamOAuthClient, seedIamClient, seedIamProject } from "../../helpers/emulators-google-iam";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const redirectUri = googleAdapter.ops[0] as OpSpec;
export const CLIENT = "previews-client";

export async function iamProjectWithClient(uris: string[], failure?: SetupFailure) {
  const project = freshGoogleProject();
  const account = await googleServiceAccount(failure !== "unauthenticated");
  await seedIamProject(project, {
    members: { [account.email]: failure === "forbidden" ? "viewer" : "editor" },
  });
  if (failure !== "missing") await seedIamClient(project, iamOAuthClient(project, CLIENT, uris));
  const h = harness(googleAdapter, { type: "google", serviceAccountKey: account.keyJson }, [account.keyJson]);
  const client = () => iamClient(project, CLIENT);
  const params = (url: string) => ({ project, location: "global", client: CLIENT, url });
  return { ...h, project, account, client, params };
}
