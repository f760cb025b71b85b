/**
 * Capacity under the lease (docs/design.md, "Lists at their cap"): the write a group would send is
 * played on the object as read under the lease, list by list, and one that would take a list past
 * its cap is refused with LIST_FULL before anything is claimed or sent. Decided here as data, so
 * eviction (issue 32, item 2) can make room where this only refuses.
 */
import { SponsonError } from "../../../shared/errors";
import type { Item } from "../plan/item";
import type { Decided } from "../rules/group-decisions";

/** The cap of `item`'s list: the operator's (connection `capacity`), else the documented one. */
export type CapOf = (item: Item) => number | undefined;

/** The documented cap, lowered (never raised: config check refuses that) by the operator's. */
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
  cap: number;
  /** Entries in the list as read under the lease. */
  entries: number;
  /** Entries after the write. */
  after: number;
}

/**
 * The first list `decisions`' writes would take past its cap, or null. A write that does not grow a
 * list is never refused, even above a cap lowered since it filled. Lists whose cap counts more than
 * the op's own entries (`capacity.counts`: Entra's platforms, S3's rules) are not counted here.
 */
export function overCap(
  object: string,
  state: unknown,
  decisions: readonly Decided[],
  capOf: CapOf,
): ListFill | null {
  const byOp = new Map<string, Decided[]>();
  for (const d of decisions) {
    if (!d.write) continue;
    const ds = byOp.get(d.change.item.opName) ?? [];
    ds.push(d);
    byOp.set(d.change.item.opName, ds);
  }
  for (const [op, ds] of byOp) {
    const item = (ds[0] as Decided).change.item;
    const batch = item.op.batch;
    if (item.op.capacity?.counts !== undefined || !batch) continue;
    const cap = capOf(item);
    if (cap === undefined) continue;
    const entries = batch.keys(state, item.params).length;
    let edited = state;
    for (const d of ds) edited = batch.edit(edited, d.change.item.params, d.change.action);
    const after = batch.keys(edited, item.params).length;
    if (after > cap && after > entries) return { object, op, cap, entries, after };
  }
  return null;
}

/** The refusal: nothing was claimed or sent; the same request fails until entries are removed. */
export function listFull(fill: ListFill): SponsonError {
  return new SponsonError(
    "LIST_FULL",
    `${fill.object}: ${fill.op}'s list holds ${fill.entries} of at most ${fill.cap} entries; this write would make it ${fill.after}. Nothing was written: remove entries (\`sponson destroy --scope …\` for scopes that are done) and run again`,
    { list: { object: fill.object, op: fill.op }, cap: fill.cap, entries: fill.entries, after: fill.after },
  );
}
