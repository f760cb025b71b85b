/**
 * A critical section attempt's send phase (critical-section.ts): the group's one write through the
 * fence, and what became of it — refused on a stale read (decided again), sent with some writes
 * held back, or failed with what it certainly did not write (docs/design.md, "Fencing around a
 * write", "A send of several requests refused half-way").
 */
import { StaleState } from "../../adapters/stale-state";
import type { Decided } from "../rules/group-decisions";
import { PartlySent, SendStopped, sendWrites } from "./provider-write";
import type { Refused } from "./refused-write";
import type { Fitted } from "./section-attempt";
import type { SectionInput } from "./section-io";
import type { WritePlan } from "./section-plan";

/** A send's end: refused (`stale`), written but for `heldBack`, or `failed` (the group fails). */
export type Sent = Refused | { heldBack: Decided[] } | { failed: unknown; unwritten: readonly Decided[] };

export async function fencedSend(input: SectionInput, a: Fitted, plan: WritePlan): Promise<Sent> {
  const { first, lease, fence, parts: w } = input;
  const { decisions, writes } = plan;
  const owns = a.group.owns;
  const toSend = { deps: w.deps, ctx: a.ctx, lease, batch: a.batch, state: a.state, first, writes };
  let heldBack: Decided[] = [];
  // Certainly not written, should the write fail: all of it until the send starts, then what it says.
  let unwritten: readonly Decided[] = writes;
  try {
    await fence.write(async () => {
      unwritten = [];
      try {
        const { items, group } = a;
        heldBack = await sendWrites({ ...toSend, items, seen: group.seen, unanswered: fence.unanswered });
      } catch (err) {
        if (!(err instanceof SendStopped)) throw err;
        // The fence sees a partial send as one; any other stop as its failure alone.
        unwritten = err.unwritten;
        throw err instanceof PartlySent ? err : err.failure;
      }
    }, plan.after);
  } catch (err) {
    if (err instanceof StaleState) return { stale: err, decisions, owns, sent: [] };
    if (err instanceof PartlySent && err.refused)
      return { stale: err.refused, decisions, owns, sent: err.sent };
    return { failed: err instanceof PartlySent ? err.failure : err, unwritten };
  }
  return { heldBack };
}
