/** A fresh emulated Okta org with one OIDC app, and an adapter context pointed at it. */
import { oktaAdapter } from "../../../workers/adapters/okta";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import { freshOktaOrg, oktaApp, oktaOidcApp, seedOktaApp, seedOktaToken } from "../../helpers/emulators-okta";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const APP_ID = "0oa1previews2x3y4z5";

export function oktaOp(name: string): OpSpec {
  const op = oktaAdapter.ops.find((o) => o.name === name);
  if (!op) throw new Error(`no op ${name}`);
  return op;
}

export async function oktaOrg(
  lists: { redirect_uris?: string[]; post_logout_redirect_uris?: string[] },
  failure?: SetupFailure,
) {
  const org = freshOktaOrg();
  const token = `00${crypto.randomUUID().replaceAll("-", "")}`;
  if (failure !== "unauthenticated") await seedOktaToken(org, token, { readOnly: failure === "forbidden" });
  if (failure !== "missing") await seedOktaApp(org, oktaOidcApp(APP_ID, lists));
  const h = harness(oktaAdapter, { type: "okta", domain: org, apiToken: token }, [token]);
  return { ...h, org, token, app: () => oktaApp(org, APP_ID) };
}
