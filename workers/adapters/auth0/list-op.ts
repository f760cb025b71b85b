/**
 * One op per Auth0 application list. All four share the application (kind `auth0.client`): a run's
 * URLs in any of its lists are read with one GET and sent with one PATCH of the lists that changed
 * (workers/adapters/list-member/); every other entry is sent back exactly as read, in order.
 */

import { listMemberOp, listWithEntry } from "../list-member/list-member-op";
import type { OpSpec, Params } from "../op-spec";
import { type Auth0Config, auth0ClientIdentity, auth0LineParamsSchema } from "./config";
import {
  type Auth0ClientLists,
  type Auth0ListField,
  auth0ClientListsSchema,
  readClientLists,
  writeClientLists,
} from "./management-api";

const parse = (params: Params) => auth0LineParamsSchema.parse(params);

export function auth0ListOp(name: string, field: Auth0ListField): OpSpec<Auth0Config> {
  return listMemberOp<Auth0Config, Auth0ClientLists>({
    name,
    providerType: "auth0",
    params: auth0LineParamsSchema,
    itemParam: "url",
    objectParam: "client",
    kind: "auth0.client",
    lockOn: (params, provider) => auth0ClientIdentity(provider, parse(params).client),
    read: (ctx, client) => readClientLists(ctx, client),
    objectSchema: auth0ClientListsSchema,
    entries: (lists) => lists[field],
    withEntry: (lists, url, present) => ({ ...lists, [field]: listWithEntry(lists[field], url, present) }),
    write: (ctx, client, before, after) => writeClientLists(ctx, client, before, after),
  });
}
