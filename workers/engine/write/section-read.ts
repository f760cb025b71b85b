/**
 * One attempt's read under the parent lease (docs/design.md, "Run algorithm", "Writing one object's
 * items"): the read made before the lease may be stale, so the object is read again — once, in its
 * many-items form (with the lock's memory of recent writes merged in), else each item inspected —
 * and every item's ownership is read with it.
 */
import type { ItemOwnership, OwnedItem } from "../../../shared/schemas/ownership";
import type { BatchForm, Inspection, OpContext } from "../../adapters/op-spec";
import type { QuotaRead } from "../capacity/section-capacity";
import type { GroupContext } from "../contracts/group-context";
import { groupOwnership } from "../lease/owner-bookkeeping";
import type { Item } from "../plan/item";
import { keysOf } from "../rules/group-decisions";
import { readUnderLease } from "./recent-writes-section";

export interface SectionRead {
  /** The object's many-items form (null: one call per item) and its state as read. */
  batch: BatchForm | null;
  state: unknown;
  /** Each item's inspection, in order. */
  seen: Inspection[];
  /** Each item's ownership, in order; null where ownership does not apply. */
  owns: ItemOwnership[] | null;
  /** What the shares of a list are checked against, read with `owns`; null with `owns`. */
  quota: QuotaRead | null;
}

export async function readSection(
  group: GroupContext,
  at: {
    items: readonly Item[];
    /** The run's other entries on the lists, read along (lease/owner-bookkeeping.ts `runListOf`). */
    along: readonly OwnedItem[];
    ctx: OpContext;
  },
): Promise<SectionRead> {
  const { parts: w, first, lease, fence, object } = group;
  const { items, ctx } = at;
  const batch = first.op.batch && object !== null ? first.op.batch : null;
  // A provider that may not show a recent write yet gets the lock's memory of it merged in.
  const state = batch ? await readUnderLease(w.deps, { batch, ctx, params: first.params, lease }) : null;
  const seen: Inspection[] = [];
  for (const item of items) {
    // Each op sees its own list in the object read once.
    seen.push(
      state !== null
        ? { present: keysOf(item, state).includes(item.key) }
        : await item.op.inspect(ctx, item.params),
    );
  }
  const read = await groupOwnership(w, { items, extra: at.along, lease, fence, ctx, state });
  return {
    batch,
    state,
    seen,
    owns: read?.owns ?? null,
    quota: read ? { along: read.extra, shares: read.shares } : null,
  };
}
