/** A fresh emulated project with one reCAPTCHA website key, a service account on it, and an adapter context. */
import type { OpSpec } from "../../../workers/adapters/op-spec";
import { recaptchaAdapter } from "../../../workers/adapters/recaptcha";
import { freshGoogleProject, googleServiceAccount } from "../../helpers/emulators-firebase";
import {
  recaptchaKey,
  recaptchaWebKey,
  seedRecaptchaKey,
  seedRecaptchaProject,
} from "../../helpers/emulators-recaptcha";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const allowedDomain = recaptchaAdapter.ops[0] as OpSpec;
export const SITE_KEY = "6LcPreviewsSiteKey0000000000000000000000";

export async function recaptchaProjectWithKey(domains: string[], failure?: SetupFailure) {
  const project = freshGoogleProject();
  const account = await googleServiceAccount(failure !== "unauthenticated");
  await seedRecaptchaProject(project, {
    members: { [account.email]: failure === "forbidden" ? "viewer" : "editor" },
  });
  if (failure !== "missing") await seedRecaptchaKey(project, recaptchaWebKey(project, SITE_KEY, domains));
  const h = harness(recaptchaAdapter, { type: "recaptcha", serviceAccountKey: account.keyJson }, [
    account.keyJson,
  ]);
  const key = () => recaptchaKey(project, SITE_KEY);
  const domainsNow = async () => (await key())?.webSettings?.allowedDomains ?? [];
  const params = (domain: string) => ({ project, siteKey: SITE_KEY, domain });
  return { ...h, project, account, key, domainsNow, params };
}
