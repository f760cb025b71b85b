/**
 * Keycloak (self-hosted, 26.x): a client's valid redirect URIs, web origins and post-logout
 * redirect URIs (the `post.logout.redirect.uris` attribute, one `##`-separated string). All three
 * live on the client (kind `keycloak.client`): a run's entries go out in one PUT of the whole
 * representation as read, no precondition, the parent lease serializing. Connection: `{ "type":
 * "keycloak", "config": { "host": "keycloak.acme.com", "realm": "previews", "clientId":
 * "sponson" }, "secrets": { "clientSecret": "KEYCLOAK_CLIENT_SECRET" } }`; line params:
 * `{ "client": "<clientId>", "url": "https://…" }`.
 */
import { listMemberOp, listWithEntry } from "../list-member/list-member-op";
import { defineAdapter, type OpSpec, type Params, type ProviderAdapter, withOriginItems } from "../op-spec";
import {
  type ClientRep,
  clientRepSchema,
  POST_LOGOUT_ATTRIBUTE,
  postLogoutOf,
  readClient,
  warmKeycloakToken,
  writeClient,
} from "./admin-api";
import {
  type KeycloakConfig,
  keycloakClientIdentity,
  keycloakConfigSchema,
  keycloakLineParamsSchema,
} from "./config";

const parse = (params: Params) => keycloakLineParamsSchema.parse(params);

interface ClientList {
  entries(rep: ClientRep): string[];
  with(rep: ClientRep, list: string[]): ClientRep;
}

const LISTS: Record<string, ClientList> = {
  redirectUris: { entries: (r) => r.redirectUris ?? [], with: (r, l) => ({ ...r, redirectUris: l }) },
  webOrigins: { entries: (r) => r.webOrigins ?? [], with: (r, l) => ({ ...r, webOrigins: l }) },
  postLogout: {
    entries: postLogoutOf,
    with: (r, l) => ({ ...r, attributes: { ...r.attributes, [POST_LOGOUT_ATTRIBUTE]: l.join("##") } }),
  },
};

function keycloakListOp(name: string, list: ClientList): OpSpec<KeycloakConfig> {
  return listMemberOp<KeycloakConfig, ClientRep>({
    name,
    providerType: "keycloak",
    params: keycloakLineParamsSchema,
    itemParam: "url",
    objectParam: "client",
    kind: "keycloak.client",
    lockOn: (params, connection) => keycloakClientIdentity(connection, parse(params).client),
    read: (ctx, client) => readClient(ctx, client),
    objectSchema: clientRepSchema,
    entries: (rep) => list.entries(rep),
    withEntry: (rep, url, present) => list.with(rep, listWithEntry(list.entries(rep), url, present)),
    // The whole representation as read: an omitted authorizationServicesEnabled would wipe the
    // client's authorization settings.
    write: (ctx, _client, _before, after) => writeClient(ctx, after),
  });
}

const typedAdapter: ProviderAdapter<KeycloakConfig> = {
  type: "keycloak",
  config: keycloakConfigSchema,
  prepare: (ctx) => warmKeycloakToken(ctx),
  ops: [
    keycloakListOp("keycloak.redirectUri", LISTS.redirectUris as ClientList),
    // `+`: the origins of the client's redirect URIs; `*`: every origin.
    withOriginItems(keycloakListOp("keycloak.webOrigin", LISTS.webOrigins as ClientList), {
      tokens: ["+", "*"],
    }),
    keycloakListOp("keycloak.postLogoutRedirectUri", LISTS.postLogout as ClientList),
  ],
};

export const keycloakAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { keycloakClientIdentity } from "./config";
