/**
 * Okta: an OIDC app's sign-in and sign-out redirect URIs. GET the app, change one
 * array, PUT the whole app back (no precondition: the parent lease serializes). Plan block:
 * `{ "type": "okta", "domain": "acme.okta.com", "apiToken": { "secret": "OKTA_API_TOKEN" } }`;
 * line params: `{ "app": "<app id>", "url": "https://…" }`.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import {
  defineAdapter,
  type Inspection,
  type OpSpec,
  type Params,
  type ProviderAdapter,
} from "../../engine/op-spec";
import { listOf, type OktaApp, type OktaListField, oktaAppSchema, readApp, writeAppList } from "./apps-api";
import { type OktaConfig, oktaAppIdentity, oktaConfigSchema, oktaLineParamsSchema } from "./config";

const parse = (params: Params) => oktaLineParamsSchema.parse(params);
const seenSchema = z.object({ field: z.string(), app: oktaAppSchema });

function oktaListOp(name: string, field: OktaListField): OpSpec<OktaConfig> {
  const seenApp = (seen: Inspection, id: string): OktaApp => {
    const state = seenSchema.safeParse(seen.state);
    if (!state.success || state.data.field !== field || state.data.app.id !== id) {
      throw new SponsonError("INTERNAL", `${name}: a write needs this op's own inspection of app ${id}`);
    }
    return state.data.app;
  };
  return {
    name,
    providerType: "okta",
    params: oktaLineParamsSchema,
    key: (params) => parse(params).url,
    itemParam: "url",
    list: async (ctx, params) => listOf(await readApp(ctx, parse(params).app), field),
    lockOn: (params, provider) => oktaAppIdentity(provider, parse(params).app),

    async inspect(ctx, params) {
      const { app, url } = parse(params);
      const read = await readApp(ctx, app);
      return { present: listOf(read, field).includes(url), state: { field, app: read } };
    },

    async create(ctx, params, seen) {
      const { app, url } = parse(params);
      const read = seenApp(seen, app);
      const list = listOf(read, field);
      if (list.includes(url)) return;
      await writeAppList(ctx, read, field, [...list, url]);
    },

    async remove(ctx, params, seen) {
      const { app, url } = parse(params);
      const read = seenApp(seen, app);
      const list = listOf(read, field);
      if (!list.includes(url)) return;
      await writeAppList(
        ctx,
        read,
        field,
        list.filter((u) => u !== url),
      );
    },
  };
}

const typedAdapter: ProviderAdapter<OktaConfig> = {
  type: "okta",
  config: oktaConfigSchema,
  ops: [
    oktaListOp("okta.redirectUri", "redirect_uris"),
    oktaListOp("okta.postLogoutRedirectUri", "post_logout_redirect_uris"),
  ],
};

export const oktaAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { oktaAppIdentity } from "./config";
