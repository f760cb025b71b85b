/**
 * One op per Auth0 application list. Each edits a single URL in a single field (workers/adapters/
 * list-member/): create appends it, remove drops it, both from the list the caller inspected, and every
 * other entry is sent back exactly as read, in order.
 */
import { z } from "zod";
import type { OpSpec, Params } from "../../engine/op-spec";
import { listMemberOp } from "../list-member/list-member-op";
import { type Auth0Config, auth0ClientIdentity, auth0LineParamsSchema } from "./config";
import { type Auth0ListField, readClientList, writeClientList } from "./management-api";

const parse = (params: Params) => auth0LineParamsSchema.parse(params);

export function auth0ListOp(name: string, field: Auth0ListField): OpSpec<Auth0Config> {
  return listMemberOp<Auth0Config, string[]>({
    name,
    providerType: "auth0",
    params: auth0LineParamsSchema,
    itemParam: "url",
    objectParam: "client",
    lockOn: (params, provider) => auth0ClientIdentity(provider, parse(params).client),
    read: (ctx, client) => readClientList(ctx, client, field),
    seenSchema: z.array(z.string()),
    entries: (list) => list,
    write: (ctx, client, _seen, next) => writeClientList(ctx, client, field, next),
  });
}
