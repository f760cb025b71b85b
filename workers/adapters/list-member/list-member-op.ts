/**
 * The one shape of the identity providers' list-membership ops (Auth0, Okta, Supabase, Firebase):
 * an op's items are the entries of one list on a provider object. The object is read whole; an edit
 * adds or drops one entry of one list and keeps every other entry, and every other field, as read,
 * in order; a write sends the edited object and nothing when it says what was read. Ops of one
 * `kind` share the object, so a run's entries on it, in any of its lists, go out in one write
 * (docs/design.md, "Run algorithm"). A provider brings its line params, lease identity, and how to
 * read, view, edit and write its object.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import type { ConnectionSettings } from "../../connections/connection-schema";
import type { BatchForm, Inspection, ItemAction, OpContext, OpSpec, Params } from "../op-spec";

export interface ListMemberOpSpec<Config, Obj> {
  /** e.g. "auth0.callbackUrl" */
  name: string;
  providerType: string;
  params: z.ZodType<Params>;
  /** The param holding the entry (e.g. "url"). */
  itemParam: string;
  /** The param naming the object that holds the list (e.g. "client"). */
  objectParam: string;
  /** The object's name when one param does not say it (Google: project, location and client). */
  objectOf?(params: Params): string;
  /** Ops of one kind read and write the same object (e.g. "auth0.client"); defaults to `name`. */
  kind?: string;
  lockOn(params: Params, provider: ConnectionSettings): string;
  /** The object as every op of the kind needs it (JSON). */
  read(ctx: OpContext<Config>, object: string): Promise<Obj>;
  /** Checks a state handed back untyped is one `read` returned (or an edit of it). */
  objectSchema: z.ZodType<Obj>;
  /** This op's entries as the provider's clients read them (`params` names the list, e.g. Entra's `kind`). */
  entries(obj: Obj, params: Params): string[];
  /** The object with `item` added to (present) or dropped from this op's list. */
  withEntry(obj: Obj, item: string, present: boolean, params: Params): Obj;
  /**
   * For an object with several lists one op edits (Entra's platforms, chosen by a param): the
   * item's key names its list as well as its entry, so one URL in two lists is two items. `keyOf`
   * is a line's key, `keysOf` every key on the object (the lists a first look and the sweep see),
   * `paramsOf` the params a key stands for (what the orphan path addresses). Absent: the key is
   * the entry, and the op's list is `entries`.
   */
  keys?: {
    keyOf(params: Params): string;
    keysOf(obj: Obj): string[];
    paramsOf(key: string): Params | null;
  };
  /** Documented read-after-write lag: how long a write may be missing from reads (op-spec.ts). */
  forgetsWritesForMs?: number;
  /** Sends `after`; `before` is what was read (for providers that send only what changed). */
  write(ctx: OpContext<Config>, object: string, before: Obj, after: Obj): Promise<unknown>;
}

/** The default edit of a plain list: append the entry, or drop every copy of it. */
export function listWithEntry(list: readonly string[], item: string, present: boolean): string[] {
  return present ? [...list, item] : list.filter((e) => e !== item);
}

const stateSchema = z.object({ kind: z.string(), object: z.string(), obj: z.unknown() });

export function listMemberOp<Config, Obj>(spec: ListMemberOpSpec<Config, Obj>): OpSpec<Config> {
  const kind = spec.kind ?? spec.name;
  const parse = (params: Params) => {
    const p = spec.params.parse(params);
    const object = spec.objectOf ? spec.objectOf(p) : (p[spec.objectParam] ?? "");
    return { object, item: p[spec.itemParam] ?? "" };
  };

  /** A state is the object read for this kind: anything else is an engine bug, never sent. */
  const objOf = (state: unknown, object: string): Obj => {
    const s = stateSchema.safeParse(state);
    const obj = s.success ? spec.objectSchema.safeParse(s.data.obj) : null;
    if (!s.success || s.data.kind !== kind || s.data.object !== object || !obj?.success) {
      throw new SponsonError("INTERNAL", `${spec.name}: a write needs a read of ${object} by a ${kind} op`);
    }
    return obj.data;
  };
  const stateOf = (object: string, obj: Obj) => ({ kind, object, obj });
  const keysOn = (obj: Obj, params: Params) =>
    spec.keys ? spec.keys.keysOf(obj) : spec.entries(obj, params);
  const keyOf = (params: Params) =>
    spec.keys ? spec.keys.keyOf(spec.params.parse(params)) : parse(params).item;

  const edit = (state: unknown, params: Params, action: ItemAction) => {
    const { object, item } = parse(params);
    const obj = objOf(state, object);
    const has = spec.entries(obj, params).includes(item);
    if (has === (action === "create")) return state;
    return stateOf(object, spec.withEntry(obj, item, action === "create", params));
  };

  const batch: BatchForm<Config> = {
    kind,
    ...(spec.forgetsWritesForMs ? { forgetsWritesForMs: spec.forgetsWritesForMs } : {}),
    read: async (ctx, params) => {
      const { object } = parse(params);
      return stateOf(object, await spec.read(ctx, object));
    },
    keys: (state, params) => keysOn(objOf(state, parse(params).object), params),
    edit,
    async write(ctx, params, state, editAll) {
      const { object } = parse(params);
      const before = objOf(state, object);
      const after = objOf(editAll(state), object);
      if (JSON.stringify(after) === JSON.stringify(before)) return;
      await spec.write(ctx, object, before, after);
    },
  };

  const writeOne = async (ctx: OpContext<Config>, params: Params, seen: Inspection, action: ItemAction) =>
    batch.write(ctx, params, seen.state, (s) => edit(s, params, action));

  return {
    name: spec.name,
    providerType: spec.providerType,
    params: spec.params,
    key: keyOf,
    itemParam: spec.itemParam,
    ...(spec.keys ? { paramsOfKey: spec.keys.paramsOf } : {}),
    list: async (ctx, params) => keysOn(await spec.read(ctx, parse(params).object), params),
    lockOn: (params, provider) => spec.lockOn(params, provider),
    batch,

    async inspect(ctx, params) {
      const state = await batch.read(ctx, params);
      return { present: batch.keys(state, params).includes(keyOf(params)), state };
    },
    create: (ctx, params, seen) => writeOne(ctx, params, seen, "create"),
    remove: (ctx, params, seen) => writeOne(ctx, params, seen, "remove"),
  };
}
