/**
 * The one provider write of a group (docs/design.md, "Run algorithm"), sent between the fence's
 * checks: the object's many-items form edited once with every change, or one call per item.
 */
import type { BatchForm, Inspection, OpContext } from "../../adapters/op-spec";
import { StaleState } from "../../adapters/stale-state";
import type { ParentLease } from "../../locks/parent-lock";
import type { EngineDeps } from "../deps";
import type { Item } from "../plan/item";
import { type Decided, editAll } from "../rules/group-decisions";
import { rememberWritten } from "./recent-writes-section";

export interface ProviderWrite {
  deps: EngineDeps;
  ctx: OpContext;
  lease: ParentLease | null;
  /** The object's many-items form and its state as read under the lease; null: one call per item. */
  batch: BatchForm | null;
  state: unknown;
  first: Item;
  writes: readonly Decided[];
  /** Every item of the group, and what each one's inspection said (for per-item calls). */
  items: readonly Item[];
  seen: readonly Inspection[];
  /**
   * Items a write attempt under this lease got no answer for (Fence.unanswered): it may still
   * land, after any later request, so no later request of the lease writes them.
   */
  unanswered: { has(item: Item): boolean; add(item: Item): void };
}

/**
 * A send of one request per item that stopped at a request that failed (`failure`): `sent` are the
 * changes whose requests the provider accepted before it, in order; `unsent` those it certainly
 * never sent (held back, or after the failed one), whose claims name an entry this run never wrote
 * (docs/design.md, "A send of several requests refused half-way"). The failed request's own change
 * is in neither: whatever it sent may have landed.
 */
export class SendStopped extends Error {
  constructor(
    readonly sent: readonly Decided[],
    readonly failure: unknown,
    readonly unsent: readonly Decided[] = [],
  ) {
    super(`${sent.length} change(s) of the send were written before the next request failed`);
  }

  /** The provider's refusal of the next request as made on a stale read, if that stopped the send. */
  get refused(): StaleState | null {
    return this.failure instanceof StaleState ? this.failure : null;
  }
}

/**
 * A stopped send after some of its requests wrote: not "nothing was written". A StaleState
 * (`refused`) says the failed request wrote nothing and the changes after it were never sent;
 * anything else fails the group, once the check after what was sent is made (fence.ts).
 */
export class PartlySent extends SendStopped {}

/**
 * Sends the group's write; answers the writes held back: those of a send of several requests on an
 * item an earlier request of the lease got no answer for (docs/design.md, "An unanswered attempt
 * ends the lease quietly"). Their changes are not written by this lease. A send of one request per
 * item that fails throws SendStopped (PartlySent once something was written).
 */
export async function sendWrites(p: ProviderWrite): Promise<Decided[]> {
  const { batch, ctx, writes } = p;
  if (batch) {
    // One request (retried as itself): a StaleState from it says that nothing of it landed.
    await batch.write(ctx, p.first.params, p.state, editAll(writes));
    await rememberWritten(p.deps, batch, p.lease, writes);
    return [];
  }
  // One call per item, each told whether its item is there after the changes before it (a
  // queued run's claim may follow this run's removal of the same item).
  const sent: Decided[] = [];
  const heldBack: Decided[] = [];
  for (const [at, d] of writes.entries()) {
    const { change, presentBefore } = d;
    // An attempt on this item got no answer: it may land after this request and undo it.
    if (p.unanswered.has(change.item)) {
      heldBack.push(d);
      continue;
    }
    const i = p.items.indexOf(change.item);
    const send = change.action === "create" ? change.item.op.create : change.item.op.remove;
    const told: OpContext = {
      ...ctx,
      onUnansweredWrite: () => {
        p.unanswered.add(change.item);
        ctx.onUnansweredWrite?.();
      },
    };
    try {
      await send(told, change.item.params, { ...(p.seen[i] as Inspection), present: presentBefore ?? false });
    } catch (err) {
      // This request failed, but the ones before it wrote: their claims must stay, and the check
      // after the write is owed for them. Nothing was sent for the rest.
      const unsent = [...heldBack, ...writes.slice(at + 1)];
      throw sent.length > 0 ? new PartlySent(sent, err, unsent) : new SendStopped(sent, err, unsent);
    }
    sent.push(d);
  }
  return heldBack;
}
