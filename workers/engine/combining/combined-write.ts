/**
 * Write combining, the waiter's side (docs/design.md, "Write combining"): the run queues with its
 * changes as data, so another run's write may carry them (then no lease is taken here), or the
 * lease comes and this run writes what is left, taking what others queued (holder.ts).
 */
import { MAX_QUEUED_CHANGES } from "../../../shared/schemas/combine";
import { OTHER_REPOSITORY_RUN } from "../../../shared/schemas/provenance";
import { type CombineOutcome, ParentLease } from "../../locks/parent-lock";
import type { WaitPolicy, WriterParts } from "../contracts/writer-parts";
import { grantItemsOf } from "../lease/owner-bookkeeping";
import { acquireParent } from "../lease/parent-lease";
import type { Item } from "../plan/item";
import type { Change, Decided } from "../rules/group-decisions";
import { ownerOf } from "../rules/ownership";
import { changeId, decidedFromAnswer, queuedChangeOf, untakenRefusal } from "./combining";

/** Write combining applies where ownership does: under a parent lease, unless turned off here. */
export function combines(w: WriterParts, item: Item): boolean {
  const deps = w.deps;
  return (
    item.parent !== null &&
    deps.controls.parentLocks &&
    deps.controls.ownership &&
    (deps.combining?.(w.run.environment) ?? false)
  );
}

/** What queuing came to: a lease for what is left (`rest`), and what a holder wrote for this run. */
export type Joined =
  | { ok: true; lease: ParentLease | null; rest: Change[]; carried: CarriedAnswer; touched: boolean }
  /** `touched`: a holder may have taken these changes, so their intents stay. */
  | { ok: false; error: unknown; touched: boolean };

/** The changes another run's write carried for this one, as this run records them. */
export interface CarriedAnswer {
  decided: ReadonlyMap<string, Decided>;
  /** The holder's run, when it wrote any. */
  by: string | null;
}

/** Queues `changes` for their parent lock, or is granted its lease. Never throws: see `Joined`. */
export async function joinQueue(
  w: WriterParts,
  ask: { first: Item; changes: readonly Change[]; waiting: WaitPolicy },
): Promise<Joined> {
  const me = ownerOf(w.run);
  // A group larger than one waiter may queue is not offered to a holder: this run takes the lease
  // and writes all of it itself (still taking what others queued), so any plan size applies.
  const { changes } = ask;
  const queued = changes.length > MAX_QUEUED_CHANGES ? [] : changes.map((c) => queuedChangeOf(c, w.run, me));
  let answer: CombineOutcome;
  try {
    answer = await acquireParent(
      w,
      {
        ...ask,
        items: grantItemsOf(
          w,
          changes.map((c) => c.item),
        ),
      },
      (target, opts) => ParentLease.acquireOrCombine(target, w.run.id, opts, queued),
    );
  } catch (error) {
    // A holder may have taken these changes and be writing them now (or have written them):
    // unless the lock object vouches that nobody took them, their intents stay (touched).
    return { ok: false, error, touched: !untakenRefusal(error) };
  }
  const { lease, combined, taken } = answer;
  // A holder of another repository is not named to this one (docs/security.md, "Repository isolation").
  const holder = combined?.repository === w.run.repository.id ? combined.by : OTHER_REPOSITORY_RUN;
  const outcomes = new Map(combined?.outcomes.map((o) => [o.id, o.outcome]) ?? []);
  const decided = new Map<string, Decided>();
  for (const change of changes) {
    const outcome = outcomes.get(changeId(change));
    if (outcome && combined)
      decided.set(changeId(change), decidedFromAnswer({ change, owner: me }, outcome, holder));
  }
  const rest = changes.filter((c) => !outcomes.has(changeId(c)));
  // Taken by a holder whose lease ended unreported: they may be on the provider whatever we do.
  const touched = taken || (combined !== null && outcomes.size > 0);
  const by = combined && outcomes.size > 0 ? holder : null;
  return { ok: true, lease, rest, carried: { decided, by }, touched };
}
