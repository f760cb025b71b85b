/**
 * The fill level each capped list of a group's object has once its write is made (docs/design.md,
 * "Lists at their cap", "Fill levels"): counted from the read under the lease and
 * the decisions the write carried, the same way the cap check counts (../capacity/list-fill.ts), so
 * no provider call is added. A cap that counts the whole object (`capacity.measure`: Entra's
 * platforms, S3's rules) is measured on the object as the whole write leaves it, with its own cap.
 * An op with several lists on the object (a bucket's CORS rules) records one fill per list it
 * touched, each naming its list.
 */
import type { FillLevel } from "../../../shared/schemas/fill-level";
import { byList, type CapOf, effectiveCap, listNameOf } from "../capacity/list-fill";
import type { Decided } from "../rules/group-decisions";

export function fillsAfterWrite(
  state: unknown,
  decisions: readonly Decided[],
  capOf: CapOf,
  at: number,
): FillLevel[] {
  let whole = state;
  for (const d of decisions) {
    const batch = d.change.item.op.batch;
    if (d.write && batch) whole = batch.edit(whole, d.change.item.params, d.change.action);
  }
  const fills: FillLevel[] = [];
  for (const ds of byList(decisions).values()) {
    const item = (ds[0] as Decided).change.item;
    const batch = item.op.batch;
    if (!batch) continue;
    const op = item.opName;
    const measure = item.op.capacity?.measure;
    if (measure) {
      const after = measure(whole);
      const cap = effectiveCap(capOf(item), after.cap) ?? item.op.capacity?.maxEntries;
      if (cap !== undefined) fills.push({ op, cap, entries: after.entries, at });
      continue;
    }
    const cap = capOf(item);
    if (cap === undefined) continue;
    // The list's own writes, as overCap counts it.
    let edited = state;
    for (const d of ds) if (d.write) edited = batch.edit(edited, d.change.item.params, d.change.action);
    const list = listNameOf(item);
    fills.push({ op, ...(list ? { list } : {}), cap, entries: batch.keys(edited, item.params).length, at });
  }
  return fills;
}
