/**
 * Okta: an OIDC app's sign-in and sign-out redirect URIs. GET the app, change one
 * or both arrays, PUT the whole app back (no precondition: the parent lease serializes). Plan block:
 * `{ "type": "okta", "domain": "acme.okta.com", "apiToken": { "secret": "OKTA_API_TOKEN" } }`;
 * line params: `{ "app": "<app id>", "url": "https://…" }`.
 */

import { OKTA_BUDGET } from "../budgets";
import { listMemberOp, listWithEntry } from "../list-member/list-member-op";
import { defineAdapter, type OpSpec, type Params, type ProviderAdapter } from "../op-spec";
import {
  listOf,
  type OktaApp,
  type OktaListField,
  oktaAppSchema,
  readApp,
  withList,
  writeApp,
} from "./apps-api";
import { type OktaConfig, oktaAppIdentity, oktaConfigSchema, oktaLineParamsSchema } from "./config";
import { prepareOktaToken } from "./service-token";

const parse = (params: Params) => oktaLineParamsSchema.parse(params);

function oktaListOp(name: string, field: OktaListField): OpSpec<OktaConfig> {
  return listMemberOp<OktaConfig, OktaApp>({
    name,
    providerType: "okta",
    params: oktaLineParamsSchema,
    itemParam: "url",
    objectParam: "app",
    // Both lists live on the app: a run's URIs in either go out in one PUT.
    kind: "okta.app",
    lockOn: (params, provider) => oktaAppIdentity(provider, parse(params).app),
    // The whole app: a PUT replaces it, so every other field goes back as read.
    read: (ctx, app) => readApp(ctx, app),
    objectSchema: oktaAppSchema,
    entries: (app) => listOf(app, field),
    withEntry: (app, url, present) => withList(app, field, listWithEntry(listOf(app, field), url, present)),
    write: (ctx, _app, _before, after) => writeApp(ctx, after),
  });
}

const typedAdapter: ProviderAdapter<OktaConfig> = {
  type: "okta",
  config: oktaConfigSchema,
  // A privateKeyJwt connection's token exchange happens before any lease (docs/design.md, "Lease protocol").
  prepare: (ctx) => prepareOktaToken(ctx),
  budget: OKTA_BUDGET,
  ops: [
    oktaListOp("okta.redirectUri", "redirect_uris"),
    oktaListOp("okta.postLogoutRedirectUri", "post_logout_redirect_uris"),
  ],
};

export const oktaAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { oktaAppIdentity } from "./config";
