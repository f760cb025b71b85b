/**
 * The one provider write of a group (docs/design.md, "Run algorithm"), sent between the fence's
 * checks: the object's many-items form edited once with every change, or one call per item.
 */
import type { BatchForm, Inspection, OpContext } from "../../adapters/op-spec";
import { StaleState } from "../../adapters/stale-state";
import type { ParentLock } from "../../locks/parent-lock";
import type { EngineDeps } from "../deps";
import type { Item } from "../plan/item";
import { type Decided, editAll } from "../rules/group-decisions";
import { rememberWritten } from "./recent-writes-section";

export interface ProviderWrite {
  deps: EngineDeps;
  ctx: OpContext;
  lease: ParentLock | null;
  /** The object's many-items form and its state as read under the lease; null: one call per item. */
  batch: BatchForm | null;
  state: unknown;
  first: Item;
  writes: readonly Decided[];
  /** Every item of the group, and what each one's inspection said (for per-item calls). */
  items: readonly Item[];
  seen: readonly Inspection[];
}

/**
 * A send of several requests refused as StaleState after some of its requests were written
 * (docs/design.md, "Fencing around a write"): not "nothing was written". `sent` are the changes
 * whose requests the provider accepted, in order; `refused` is the refusal of the next one, which
 * wrote nothing, and the changes after it were never sent.
 */
export class PartlySent extends Error {
  constructor(
    readonly sent: readonly Decided[],
    readonly refused: StaleState,
  ) {
    super(`${sent.length} change(s) of the send were written before the provider refused the next`);
  }
}

export async function sendWrites(p: ProviderWrite): Promise<void> {
  const { batch, ctx, writes } = p;
  if (batch) {
    // One request (retried as itself): a StaleState from it says that nothing of it landed.
    await batch.write(ctx, p.first.params, p.state, editAll(writes));
    await rememberWritten(p.deps, batch, p.lease, writes);
    return;
  }
  // One call per item, each told whether its item is there after the changes before it (a
  // queued run's claim may follow this run's removal of the same item).
  const sent: Decided[] = [];
  for (const d of writes) {
    const { change, presentBefore } = d;
    const i = p.items.indexOf(change.item);
    const send = change.action === "create" ? change.item.op.create : change.item.op.remove;
    try {
      await send(ctx, change.item.params, { ...(p.seen[i] as Inspection), present: presentBefore ?? false });
    } catch (err) {
      // This request wrote nothing, but the ones before it did: their claims must stay.
      if (err instanceof StaleState && sent.length > 0) throw new PartlySent(sent, err);
      throw err;
    }
    sent.push(d);
  }
}
