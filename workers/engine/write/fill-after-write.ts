/**
 * The fill level each capped list of a group's object has once its write is made (docs/design.md,
 * "Lists at their cap"; issue 32, "Capacity is visible"): counted from the read under the lease and
 * the decisions the write carried, the same way the cap check counts (../capacity/list-fill.ts), so
 * no provider call is added. Lists whose cap counts more than the op's own entries are left out
 * there and here.
 */
import type { FillLevel } from "../../../shared/schemas/fill-level";
import type { CapOf } from "../capacity/list-fill";
import type { Decided } from "../rules/group-decisions";

export function fillsAfterWrite(
  state: unknown,
  decisions: readonly Decided[],
  capOf: CapOf,
  at: number,
): FillLevel[] {
  const byOp = new Map<string, Decided[]>();
  for (const d of decisions) byOp.set(d.change.item.opName, [...(byOp.get(d.change.item.opName) ?? []), d]);
  const fills: FillLevel[] = [];
  for (const [op, ds] of byOp) {
    const item = (ds[0] as Decided).change.item;
    const batch = item.op.batch;
    if (item.op.capacity?.counts !== undefined || !batch) continue;
    const cap = capOf(item);
    if (cap === undefined) continue;
    let edited = state;
    for (const d of ds) if (d.write) edited = batch.edit(edited, d.change.item.params, d.change.action);
    fills.push({ op, cap, entries: batch.keys(edited, item.params).length, at });
  }
  return fills;
}
