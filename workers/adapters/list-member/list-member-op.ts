/**
 * The one shape of the identity providers' list-membership ops (Auth0, Okta, Supabase, Firebase):
 * inspect reads the object that holds the list; create and remove edit one entry in the list that
 * inspection saw (under the parent lease, docs/design.md, "Run algorithm"), send every other entry
 * back as read, in order, and send nothing when the list already says what the line wants. A
 * provider brings its line params, lease identity, and how to read, view and write its list.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import type { ConnectionSettings } from "../../connections/connection-schema";
import type { Inspection, OpContext, OpSpec, Params } from "../../engine/op-spec";

export interface ListMemberOpSpec<Config, Seen, Next = string[]> {
  /** e.g. "auth0.callbackUrl" */
  name: string;
  providerType: string;
  params: z.ZodType<Params>;
  /** The param holding the entry (e.g. "url"). */
  itemParam: string;
  /** The param naming the object that holds the list (e.g. "client"). */
  objectParam: string;
  lockOn(params: Params, provider: ConnectionSettings): string;
  /** What a write needs from the read (JSON): the list, or the whole object it lives in. */
  read(ctx: OpContext<Config>, object: string): Promise<Seen>;
  /** Checks the inspection's state (handed back untyped) is one `read` returned. */
  seenSchema: z.ZodType<Seen>;
  /** The entries as the provider's clients read them. */
  entries(seen: Seen): string[];
  /** What to send with `item` added or removed; default: the entries plus or minus it. */
  adding?(seen: Seen, item: string): Next;
  removing?(seen: Seen, item: string): Next;
  write(ctx: OpContext<Config>, object: string, seen: Seen, next: Next): Promise<unknown>;
}

const ownerSchema = z.object({ op: z.string(), object: z.string() });

export function listMemberOp<Config, Seen, Next = string[]>(
  spec: ListMemberOpSpec<Config, Seen, Next>,
): OpSpec<Config> {
  const parse = (params: Params) => {
    const p = spec.params.parse(params);
    return { object: p[spec.objectParam] ?? "", item: p[spec.itemParam] ?? "" };
  };
  const adding = spec.adding ?? ((seen: Seen, item: string) => [...spec.entries(seen), item] as Next);
  const removing =
    spec.removing ?? ((seen: Seen, item: string) => spec.entries(seen).filter((e) => e !== item) as Next);

  /** The read saved by this op's own inspection of this object. */
  const seenOf = (seen: Inspection, object: string): Seen => {
    const owner = ownerSchema.safeParse(seen.state);
    const state = z.object({ seen: spec.seenSchema }).safeParse(seen.state);
    if (!owner.success || owner.data.op !== spec.name || owner.data.object !== object || !state.success) {
      throw new SponsonError("INTERNAL", `${spec.name}: a write needs this op's own inspection of ${object}`);
    }
    return state.data.seen;
  };

  return {
    name: spec.name,
    providerType: spec.providerType,
    params: spec.params,
    key: (params) => parse(params).item,
    itemParam: spec.itemParam,
    list: async (ctx, params) => spec.entries(await spec.read(ctx, parse(params).object)),
    lockOn: (params, provider) => spec.lockOn(params, provider),

    async inspect(ctx, params) {
      const { object, item } = parse(params);
      const seen = await spec.read(ctx, object);
      return { present: spec.entries(seen).includes(item), state: { op: spec.name, object, seen } };
    },

    async create(ctx, params, inspection) {
      const { object, item } = parse(params);
      const seen = seenOf(inspection, object);
      if (spec.entries(seen).includes(item)) return;
      await spec.write(ctx, object, seen, adding(seen, item));
    },

    async remove(ctx, params, inspection) {
      const { object, item } = parse(params);
      const seen = seenOf(inspection, object);
      if (!spec.entries(seen).includes(item)) return;
      await spec.write(ctx, object, seen, removing(seen, item));
    },
  };
}
