/**
 * Capacity under the lease (docs/design.md, "Lists at their cap"): the write a group would send is
 * played on the object as read under the lease, list by list, and one that would take a list past
 * its cap is refused with LIST_FULL before anything is claimed or sent. Decided here as data, so
 * eviction (docs/design.md, "Evicting stale scopes") can make room where this only refuses.
 */
import { SponsonError } from "../../../shared/errors";
import type { ListCapacity } from "../../adapters/op-spec";
import type { Item } from "../plan/item";
import type { Decided } from "../rules/group-decisions";
import type { ListOwners } from "./list-owners";

/** The cap of `item`'s list: the operator's (connection `capacity`), else the documented one. */
export type CapOf = (item: Item) => number | undefined;

/**
 * An op's cap on a connection: the documented one, lowered by the operator's `capacity`, or raised
 * by it no further than the cap the provider documents for another plan (`higher`; config check
 * refuses more). Without a documented cap, the operator's, if any.
 */
export function connectionCap(capacity: ListCapacity | undefined, configured: number | undefined) {
  if (capacity === undefined || configured === undefined) return configured ?? capacity?.maxEntries;
  return Math.min(configured, capacity.higher?.maxEntries ?? capacity.maxEntries);
}

/** The lower of two caps: the operator's and the object's own (Entra's personal accounts). */
export function effectiveCap(
  documented: number | undefined,
  configured: number | undefined,
): number | undefined {
  if (configured === undefined) return documented;
  return documented === undefined ? configured : Math.min(documented, configured);
}

/** One list's fill if the write were sent. */
export interface ListFill {
  /** The shared object (the parent lock's identity). */
  object: string;
  /** The op whose list it is (its list in the object). */
  op: string;
  /** Which of the op's lists on the object, when it has several (`rule previews`): each is capped alone. */
  name?: string;
  /** Set when the cap counts something other than the op's items (S3: rules, not origins). */
  counts?: { cap: string; owners: string; frees: string };
  cap: number;
  /** Entries in the list as read under the lease. */
  entries: number;
  /** Entries after the write. */
  after: number;
  /** The list's item keys as read under the lease: whose they are is the answer's detail. */
  keys: readonly string[];
  /** Set when the document's size is what does not fit (S3's 64 KB): its size after the write. */
  bytes?: number;
  maxBytes?: number;
}

/**
 * The first list `decisions`' writes would take past its cap, or null. A write that does not grow a
 * list is never refused, even above a cap lowered since it filled. A cap that counts more than the
 * op's own entries (`capacity.measure`: Entra's platforms, S3's rules and bytes) is measured on the
 * whole object with every write of the group applied, whichever op makes it: the write sent is the
 * whole object, so one op's share alone could fit while the sum does not. An op with several lists
 * on the object (`batch.listName`: a bucket's CORS rules) has each list counted on its own.
 */
export function overCap(
  object: string,
  state: unknown,
  decisions: readonly Decided[],
  capOf: CapOf,
  only: string | null = null,
): ListFill | null {
  const writes = decisions.filter((d) => d.write && d.change.item.op.batch);
  const whole = applied(state, writes);
  for (const [id, ds] of byList(writes)) {
    if (only !== null && id !== only) continue;
    const item = (ds[0] as Decided).change.item;
    const fill = item.op.capacity?.measure
      ? measured(object, item, state, whole, capOf)
      : counted(object, item, state, applied(state, ds), capOf);
    if (fill) return fill;
  }
  return null;
}

/** The named list `item` is in; none for a cap measured on the whole object, or an op with one list. */
export function listNameOf(item: Item): string | undefined {
  return item.op.capacity?.measure ? undefined : item.op.batch?.listName?.(item.params);
}

/** One list's identity on the object: its op, and its name when the op has several. */
export const listIdOf = (list: { op: string; name?: string | undefined }) =>
  `${list.op}\u0000${list.name ?? ""}`;

/** The identity of the list `item` is in. */
export const itemListId = (item: Item) => listIdOf({ op: item.opName, name: listNameOf(item) });

/** `decisions` by the list their item is in: op, and the list's name when the op has several. */
export function byList(decisions: readonly Decided[]): Map<string, Decided[]> {
  const lists = new Map<string, Decided[]>();
  for (const d of decisions) {
    const id = itemListId(d.change.item);
    lists.set(id, [...(lists.get(id) ?? []), d]);
  }
  return lists;
}

/** The object with `writes` made to it, in order (each has the many-items form). */
function applied(state: unknown, writes: readonly Decided[]): unknown {
  return writes.reduce(
    (acc, { change: { item, action } }) =>
      item.op.batch ? item.op.batch.edit(acc, item.params, action) : acc,
    state,
  );
}

/** One list of the op, `edited` by its own writes: the item's list is all `keys` counts. */
function counted(object: string, item: Item, state: unknown, edited: unknown, capOf: CapOf): ListFill | null {
  const batch = item.op.batch;
  const cap = capOf(item);
  if (!batch || cap === undefined) return null;
  const keys = batch.keys(state, item.params);
  const after = batch.keys(edited, item.params).length;
  if (!(after > cap && after > keys.length)) return null;
  const name = listNameOf(item);
  return { object, op: item.opName, ...(name ? { name } : {}), cap, entries: keys.length, after, keys };
}

function measured(object: string, item: Item, state: unknown, edited: unknown, capOf: CapOf) {
  const capacity = item.op.capacity;
  if (!capacity?.measure) return null;
  const [before, after] = [capacity.measure(state), capacity.measure(edited)];
  // The object's own lower cap (Entra's personal accounts) and the operator's: the lowest holds.
  const cap = effectiveCap(capOf(item), after.cap) ?? capacity.maxEntries;
  const keys = before.keys ?? item.op.batch?.keys(state, item.params) ?? [];
  const counts =
    capacity.counts && capacity.owners
      ? { counts: { cap: capacity.counts, owners: capacity.owners.counts, frees: capacity.owners.frees } }
      : {};
  const fill: ListFill = {
    object,
    op: item.opName,
    ...counts,
    cap,
    entries: before.entries,
    after: after.entries,
    keys,
  };
  if (after.entries > cap && after.entries > before.entries) return fill;
  const maxBytes = capacity.maxDocumentBytes;
  const [was, bytes] = [before.bytes ?? 0, after.bytes];
  if (maxBytes !== undefined && bytes !== undefined && bytes > maxBytes && bytes > was)
    return { ...fill, bytes, maxBytes };
  return null;
}

/** The refusal: nothing was claimed or sent; the same request fails until entries are removed. */
export function listFull(fill: ListFill, owners?: ListOwners): SponsonError {
  const list = fill.name ? `${fill.op}'s list (${fill.name})` : `${fill.op}'s list`;
  const what =
    fill.bytes !== undefined
      ? `${fill.op}'s document would be ${fill.bytes} bytes, past its limit of ${fill.maxBytes}`
      : fill.counts
        ? `${fill.op}'s cap counts ${fill.counts.cap}: ${fill.entries} of at most ${fill.cap}; this write would make it ${fill.after}`
        : `${list} holds ${fill.entries} of at most ${fill.cap} entries; this write would make it ${fill.after}`;
  // The owners' figures count the op's items; say so when the cap counts something else.
  const figures = fill.counts
    ? `. Each owner's entries count ${fill.counts.owners}: ${fill.counts.frees}`
    : "";
  const stale = owners?.scopes.filter((s) => s.stale !== null) ?? [];
  const remedy =
    stale.length > 0
      ? `stale scopes of this repository hold entries: ${owners?.freeRoom.join("; ")}`
      : "remove entries (`sponson destroy --scope …` for scopes that are done)";
  return new SponsonError(
    "LIST_FULL",
    `${fill.object}: ${what}${figures}. Nothing was written: ${remedy}, and run again`,
    {
      list: { object: fill.object, op: fill.op, ...(fill.name ? { name: fill.name } : {}) },
      cap: fill.cap,
      entries: fill.entries,
      after: fill.after,
      ...(fill.counts ? { counts: { cap: fill.counts.cap, owners: fill.counts.owners } } : {}),
      ...(fill.bytes !== undefined ? { bytes: fill.bytes, maxBytes: fill.maxBytes } : {}),
      ...(owners ?? {}),
    },
  );
}
