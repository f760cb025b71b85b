/**
 * One op per Auth0 application list. Each edits a single URL in a single field: create appends it,
 * remove drops it, both from the list the caller inspected (under the parent lease, docs/design.md, "Run
 * algorithm"), and every other entry is sent back exactly as read, in order. Idempotent: nothing is sent when
 * the list already says what we want.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import type { Inspection, OpSpec, Params } from "../../engine/op-spec";
import { type Auth0Config, auth0ClientIdentity, auth0LineParamsSchema } from "./config";
import { type Auth0ListField, readClientList, writeClientList } from "./management-api";

const seenStateSchema = z.object({ client: z.string(), field: z.string(), list: z.array(z.string()) });

export function auth0ListOp(name: string, field: Auth0ListField): OpSpec<Auth0Config> {
  const parse = (params: Params) => auth0LineParamsSchema.parse(params);

  /** The list from the inspection `seen`, which must be this op's inspection of this client. */
  const seenList = (seen: Inspection, client: string): string[] => {
    const state = seenStateSchema.safeParse(seen.state);
    if (!state.success || state.data.field !== field || state.data.client !== client) {
      throw new SponsonError(
        "INTERNAL",
        `${name}: a write needs this op's own inspection of client ${client}`,
      );
    }
    return state.data.list;
  };

  return {
    name,
    providerType: "auth0",
    params: auth0LineParamsSchema,
    key: (params) => parse(params).url,
    itemParam: "url",
    list: (ctx, params) => readClientList(ctx, parse(params).client, field),
    lockOn: (params, provider) => auth0ClientIdentity(provider, parse(params).client),

    async inspect(ctx, params) {
      const { client, url } = parse(params);
      const list = await readClientList(ctx, client, field);
      return { present: list.includes(url), state: { client, field, list } };
    },

    async create(ctx, params, seen) {
      const { client, url } = parse(params);
      const list = seenList(seen, client);
      if (list.includes(url)) return;
      await writeClientList(ctx, client, field, [...list, url]);
    },

    async remove(ctx, params, seen) {
      const { client, url } = parse(params);
      const list = seenList(seen, client);
      if (!list.includes(url)) return;
      await writeClientList(
        ctx,
        client,
        field,
        list.filter((entry) => entry !== url),
      );
    },
  };
}
