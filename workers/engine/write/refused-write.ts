/**
 * What a write the provider refused, or held back, leaves behind under the parent lease
 * (docs/design.md, "A send of several requests refused half-way"; "An unanswered attempt ends the
 * lease quietly"): which claims go, which of the run's own a failed withdraw left, and what a send
 * of several requests wrote for whom. Pure: the critical section does the calls.
 */
import type { ItemOwnership, OwnerChange } from "../../../shared/schemas/ownership";
import type { StaleState, WrittenBeforeRefusal } from "../../adapters/stale-state";
import type { Item } from "../plan/item";
import { type Change, type Decided, type Participant, undoChanges } from "../rules/group-decisions";

/**
 * A write refused (StaleState): what was decided and claimed for it, and what of it was written
 * all the same (`sent`: a send of several requests refused half-way; empty: nothing written).
 */
export interface Refused {
  stale: StaleState;
  decisions: Decided[];
  owns: ItemOwnership[] | null;
  sent: readonly Decided[];
}

const idOf = (item: Item) => `${item.opName}\n${item.key}`;
const own = (d: Decided, me: string) => d.owner === me && !("waiter" in d);

/**
 * The owner changes that withdraw a refused write's claims: the refused and the unsent wrote
 * nothing (an item this scope never wrote must not be its to remove); what was sent keeps its own.
 */
export function claimsToWithdraw({ owns, decisions, sent }: Refused): OwnerChange[] {
  if (!owns) return [];
  const claimed = decisions.flatMap((d) => d.ownersBefore);
  return undoChanges(
    owns,
    claimed,
    sent.flatMap((d) => d.ownersBefore),
  );
}

/**
 * The run's own creates whose claim made the scope an owner and which `undo` was to take back: left
 * at the lock by a withdraw that failed, each names the scope the owner of an entry it never wrote.
 */
export function ownClaimsIn(
  undo: readonly OwnerChange[],
  decisions: readonly Decided[],
  me: string,
): Change[] {
  const taken = new Set(
    undo.filter((c) => c.action === "remove" && c.owner === me).map((c) => `${c.op}\n${c.key}`),
  );
  return decisions
    .filter((d) => own(d, me) && d.change.action === "create" && taken.has(idOf(d.change.item)))
    .map((d) => d.change);
}

/** What the sent changes were, and whose (keptChanging's words when the attempts run out). */
export function writtenBefore(sent: Iterable<Decided>, me: string): WrittenBeforeRefusal {
  const all = [...sent];
  const mine = all.filter((d) => own(d, me));
  const keys = (ds: Decided[]) => ds.map((d) => d.change.item.key);
  return {
    written: keys(mine.filter((d) => d.change.action === "create")),
    removed: keys(mine.filter((d) => d.change.action === "remove")),
    writtenForOthers: keys(all.filter((d) => !mine.includes(d))),
  };
}

/**
 * The carried decisions a send held back: on each item whose earlier request got no answer
 * (`heldBack`: the writes it did not send), every waiter's decision after the last request it sent
 * there. Each was decided from the item as the changes before it leave it, which a late landing may
 * undo. Never an own decision: one of those held back fails the group (critical-section.ts).
 */
export function heldBackOf(decisions: readonly Decided[], heldBack: readonly Decided[]): Decided[] {
  const items = new Set(heldBack.map((d) => idOf(d.change.item)));
  const lastSent = new Map<string, number>();
  decisions.forEach((d, i) => {
    const id = idOf(d.change.item);
    if (items.has(id) && d.write && !heldBack.includes(d)) lastSent.set(id, i);
  });
  return decisions.filter((d, i) => {
    const id = idOf(d.change.item);
    return "waiter" in d && items.has(id) && i > (lastSent.get(id) ?? -1);
  });
}

/**
 * The decisions a send that stopped leaves unwritten (`unwritten`: SendStopped's), with every later
 * decision on the same items: each was decided against the item as the changes before it leave it,
 * so one after a write never made rests on nothing (a waiter's join of a create never sent). The
 * same rule as `heldBackOf`'s, from the first write not made on each item.
 */
export function restingOn(decisions: readonly Decided[], unwritten: readonly Decided[]): Decided[] {
  const first = new Map<string, number>();
  decisions.forEach((d, i) => {
    const id = idOf(d.change.item);
    if (unwritten.includes(d) && !first.has(id)) first.set(id, i);
  });
  return decisions.filter((d, i) => i >= (first.get(idOf(d.change.item)) ?? Number.POSITIVE_INFINITY));
}

/**
 * The owner changes that take back the claims made for `held` (changes not written: held back, not
 * reached or refused outright by a send that stopped, and what rested on them), the lock as `owns`
 * read it; those of every other decision on the same items stay.
 */
export function claimsOf(
  owns: readonly ItemOwnership[] | null,
  decisions: readonly Decided[],
  held: readonly Decided[],
): OwnerChange[] {
  if (!owns || held.length === 0) return [];
  const ids = new Set(held.map((d) => idOf(d.change.item)));
  const baseline = owns.filter(
    (o, i) => ids.has(`${o.op}\n${o.key}`) && owns.findIndex((x) => x.op === o.op && x.key === o.key) === i,
  );
  const kept = decisions.filter((d) => !held.includes(d));
  return undoChanges(
    baseline,
    decisions.flatMap((d) => d.ownersBefore),
    kept.flatMap((d) => d.ownersBefore),
  );
}

/**
 * The attempt's decisions with those of changes an earlier attempt wrote (`sent`), each in its
 * change's place: own changes first, in order, as the group write and the holder's report expect.
 */
export function withSent(
  everyone: readonly Participant[],
  sent: ReadonlyMap<Change, Decided>,
  decisions: Decided[],
): Decided[] {
  if (sent.size === 0) return decisions;
  const now = new Map(decisions.map((d) => [d.change, d]));
  const placed = everyone.flatMap((p) => sent.get(p.change) ?? now.get(p.change) ?? []);
  return [...placed, ...decisions.filter((d) => !placed.includes(d))];
}
