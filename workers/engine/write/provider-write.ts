/**
 * The one provider write of a group (docs/design.md, "Run algorithm"), sent between the fence's
 * checks: the object's many-items form edited once with every change, or one call per item.
 */

import { SponsonError } from "../../../shared/errors";
import type { BatchForm, Inspection, OpContext } from "../../adapters/op-spec";
import { StaleState } from "../../adapters/stale-state";
import type { ParentLease } from "../../locks/parent-lock";
import type { EngineDeps } from "../deps";
import type { Item } from "../plan/item";
import { type Decided, editAll } from "../rules/group-decisions";
import { rememberWritten } from "./recent-writes-section";
import { mayHaveLanded } from "./unanswered";

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
 * A send that stopped at a request that failed (`failure`): `sent` are the changes whose requests
 * the provider accepted before it, in order; `unwritten` those it certainly did not write — held
 * back, after the failed request, and the failed request's own when the provider refused it
 * outright (an answer, no attempt of it unanswered, nothing of it accepted) — whose claims name an
 * entry this run never wrote (docs/design.md, "A send of several requests refused half-way"). A
 * failed change that may have landed is in neither.
 */
export class SendStopped extends Error {
  constructor(
    readonly sent: readonly Decided[],
    readonly failure: unknown,
    readonly unwritten: readonly Decided[] = [],
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
 * ends the lease quietly"). Their changes are not written by this lease. A send that fails throws
 * SendStopped (PartlySent once something was written), or the failure itself where it may have
 * landed or is a precondition's refusal (StaleState: the section decides again).
 */
export async function sendWrites(p: ProviderWrite): Promise<Decided[]> {
  const { batch, writes } = p;
  if (!batch) return sendEach(p);
  // One request (retried as itself): a StaleState from it says that nothing of it landed, and so
  // does the provider's own refusal of every attempt.
  const send = watched(p.ctx);
  try {
    await batch.write(send.ctx, p.first.params, p.state, editAll(writes));
  } catch (err) {
    throw refusedOutright(err, send) ? new SendStopped([], err, writes) : err;
  }
  await rememberOrDoubt(p, batch);
  return [];
}

/**
 * The lock's memory of the write that just landed (docs/design.md, "Providers that forget a
 * write"). Its failure is no refusal of the write: a provider that forgets it may not show it to
 * the next reader, and the lock does not remember it, so its outcome for whoever reads next is as
 * unknown as a write's whose answer was lost (Fence.write then ends the lease quietly).
 */
async function rememberOrDoubt(p: ProviderWrite, batch: BatchForm): Promise<void> {
  try {
    await rememberWritten(p.deps, batch, p.lease, p.writes);
  } catch (err) {
    if (mayHaveLanded(err)) throw err;
    throw new SponsonError(
      "PROVIDER_ERROR",
      `the write landed, but the parent lock did not record it for the next reader: ${err instanceof Error ? err.message : String(err)}`,
      { outcome: "unknown" },
      { cause: err },
    );
  }
}

/** The write as one call per item (an object without the many-items form). */
async function sendEach(p: ProviderWrite): Promise<Decided[]> {
  const { writes } = p;
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
    const one = watched(p.ctx, () => p.unanswered.add(change.item));
    try {
      await send(one.ctx, change.item.params, {
        ...(p.seen[i] as Inspection),
        present: presentBefore ?? false,
      });
    } catch (err) {
      // This request failed, but the ones before it wrote: their claims must stay, and the check
      // after the write is owed for them. Nothing was sent for the rest.
      const unwritten = [...heldBack, ...(refusedOutright(err, one) ? [d] : []), ...writes.slice(at + 1)];
      throw sent.length > 0 ? new PartlySent(sent, err, unwritten) : new SendStopped(sent, err, unwritten);
    }
    sent.push(d);
  }
  return heldBack;
}

/** `ctx` that also says whether any write attempt made through it was accepted, or went unanswered. */
function watched(ctx: OpContext, onUnanswered?: () => void) {
  let landed = false;
  return {
    ctx: {
      ...ctx,
      onUnansweredWrite: () => {
        landed = true;
        onUnanswered?.();
        ctx.onUnansweredWrite?.();
      },
      onWriteAccepted: () => {
        landed = true;
        ctx.onWriteAccepted?.();
      },
    } satisfies OpContext,
    mayHaveWritten: () => landed,
  };
}

/**
 * The provider refused the write outright: it answered every attempt and accepted none, so nothing
 * of the write is there (the failure says no attempt may land, and the transport told of none that
 * may). A precondition's refusal (StaleState) is said so on its own, and decided again.
 */
function refusedOutright(err: unknown, send: { mayHaveWritten(): boolean }): boolean {
  return !(err instanceof StaleState) && !mayHaveLanded(err) && !send.mayHaveWritten();
}
