/**
 * A group write with write combining (docs/design.md, "Write combining"): the run queues with its
 * changes as data, so another run's write may carry them (then no lease is taken here), or the
 * lease comes and this run writes what is left, taking what others queued.
 */
import { SponsonError } from "../../../shared/errors";
import { MAX_QUEUED_CHANGES } from "../../../shared/schemas/combine";
import { type CombineOutcome, ParentLock } from "../../locks/parent-lock";
import type { Item } from "../plan/item";
import type { Change, Decided } from "../rules/group-decisions";
import { ownerOf } from "../rules/ownership";
import { criticalSection } from "../write/critical-section";
import { ownedItemsOf } from "../write/owner-bookkeeping";
import { acquireParent } from "../write/parent-lease";
import { fault, type Section, type WaitPolicy, type WriterParts } from "../write/writer-parts";
import { changeId, decidedFromAnswer, queuedChangeOf, untakenRefusal } from "./combining";

/** Write combining applies where ownership does: under a parent lease, unless turned off here. */
export function combines(w: WriterParts, item: Item): boolean {
  const deps = w.deps;
  return (
    item.parent !== null &&
    deps.parentLocks &&
    deps.ownership &&
    (deps.combining?.(w.run.environment) ?? false)
  );
}

export async function combinedWrite(
  w: WriterParts,
  first: Item,
  changes: readonly Change[],
  waiting: WaitPolicy,
  section: Section,
): Promise<Decided[]> {
  const me = ownerOf(w.run);
  // A group larger than one waiter may queue is not offered to a holder: this run takes the lease
  // and writes all of it itself (still taking what others queued), so any plan size applies.
  const queued = changes.length > MAX_QUEUED_CHANGES ? [] : changes.map((c) => queuedChangeOf(c, w.run, me));
  let answer: CombineOutcome;
  try {
    answer = await acquireParent(
      w,
      first,
      waiting,
      (target, opts) => ParentLock.acquireOrCombine(target, w.run.id, opts, queued),
      ownedItemsOf(changes.map((c) => c.item)),
    );
  } catch (err) {
    // A holder may have taken these changes and be writing them now (or have written them):
    // unless the lock object vouches that nobody took them, their intents stay (touched).
    if (!untakenRefusal(err)) section.touched = true;
    throw err;
  }
  const { lease, combined, taken } = answer;
  // Taken by a holder whose lease ended unreported: they may be on the provider whatever we do.
  if (taken) section.touched = true;
  const answered = new Map(combined?.outcomes.map((o) => [o.id, o.outcome]) ?? []);
  const rest = changes.filter((c) => !answered.has(changeId(c)));
  if (combined && answered.size > 0) {
    section.touched = true;
    w.run.combinedBy(combined.by);
    const done = changes.filter((c) => answered.has(changeId(c)));
    for (const change of done) await fault(w, "after-answer", change, changes);
  }
  let own: Decided[] = [];
  if (lease) {
    try {
      own = await criticalSection(w, first, lease, rest, true, section);
    } finally {
      await lease.release();
    }
  } else if (rest.length > 0) {
    throw new SponsonError("INTERNAL", `${first.parent}: neither a lease nor every change written`);
  }
  return changes.map((change) => {
    const outcome = answered.get(changeId(change));
    if (outcome && combined) return decidedFromAnswer({ change, owner: me }, outcome, combined.by);
    return own.find((d) => d.change === change) as Decided;
  });
}
