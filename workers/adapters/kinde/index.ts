/**
 * Kinde: an application's callback and logout URLs. Kinde adds and removes single URLs server-side,
 * so the list itself cannot lose an update; the application is still the parent (`lockOn`), because
 * which scopes own a URL two scopes want is kept in the parent's lock and changed under its lease
 * (docs/design.md, "Ownership of shared entries"). Connection: `{ "type": "kinde", "config": {
 * "domain": "acme.kinde.com", "clientId": "…" }, "secrets": { "clientSecret": "KINDE_CLIENT_SECRET"
 * } }`; line params: `{ "app": "<application id>", "url": "https://…" }`.
 */
import { defineAdapter, type OpSpec, type Params, type ProviderAdapter } from "../op-spec";
import { type KindeConfig, kindeAppIdentity, kindeConfigSchema, kindeLineParamsSchema } from "./config";
import { addUrl, deleteUrl, type KindeList, readUrls, warmKindeToken } from "./management-api";

const parse = (params: Params) => kindeLineParamsSchema.parse(params);

function kindeUrlOp(name: string, list: KindeList): OpSpec<KindeConfig> {
  return {
    name,
    providerType: "kinde",
    params: kindeLineParamsSchema,
    key: (params) => parse(params).url,
    itemParam: "url",
    list: (ctx, params) => readUrls(ctx, parse(params).app, list),
    lockOn: (params, connection) => kindeAppIdentity(connection, parse(params).app),
    async inspect(ctx, params) {
      const { app, url } = parse(params);
      return { present: (await readUrls(ctx, app, list)).includes(url) };
    },
    async create(ctx, params, seen) {
      if (seen.present) return;
      const { app, url } = parse(params);
      await addUrl(ctx, app, list, url);
    },
    async remove(ctx, params, seen) {
      if (!seen.present) return;
      const { app, url } = parse(params);
      await deleteUrl(ctx, app, list, url);
    },
  };
}

const typedAdapter: ProviderAdapter<KindeConfig> = {
  type: "kinde",
  config: kindeConfigSchema,
  // The client-credentials exchange happens here, before any lease is taken (docs/design.md, "Lease
  // protocol").
  prepare: (ctx) => warmKindeToken(ctx),
  ops: [
    kindeUrlOp("kinde.callbackUrl", { path: "auth_redirect_urls", field: "redirect_urls" }),
    kindeUrlOp("kinde.logoutUrl", { path: "auth_logout_urls", field: "logout_urls" }),
  ],
};

export const kindeAdapter: ProviderAdapter = defineAdapter(typedAdapter);
