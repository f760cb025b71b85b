/**
 * What each change of one object's group comes to, decided under the parent lease from the object
 * as read and the items' ownership (docs/design.md, "Ownership of shared entries"). Changes are
 * decided in order, each against the item as the ones before it leave it: a group may hold two
 * changes of one item (a run's own and a queued run's, with write combining), and the second must
 * see the first's effect — a removal followed by a claim keeps the item, never the reverse loss.
 */
import { SponsonError } from "../../../shared/errors";
import type { ItemOwnership, OwnerChange } from "../../../shared/schemas/ownership";
import { groupKeyOf, type Item } from "../plan/item";
import { decideClaim, decideRelease } from "./ownership";

export type WriteAction = "create" | "remove";

/** One item a run wants present (create) or absent (remove). */
export interface Change {
  item: Item;
  action: WriteAction;
  /**
   * A create of an item the scope's ledger already names, present, that the lock did not name the
   * scope an owner of (docs/design.md, "Evicting stale scopes"): the scope claims it back, and an
   * entry nobody owns is its own per its ledger, never a person's (not marked foreign).
   */
  inLedger?: true;
  /**
   * A removal that only gives up the scope's ownership, never takes the item off the provider:
   * recovery's resolution of a create the provider refused, whose claim the run could not take
   * back (docs/design.md, "Intent recovery"). The item is someone else's.
   */
  leaveOnly?: true;
}

/**
 * `written`: the provider was changed. `already`: it already said what the run wanted.
 * `shared` / `foreign`: the item was there and the scope joined its owners. `left`: others still
 * own the item (or it is foreign), so only the scope's ownership went.
 */
export type WriteOutcome = "written" | "already" | "shared" | "foreign" | "left";

/** A change and the scope (as `ownerOf` names it) it is made for. */
export interface Participant {
  change: Change;
  owner: string;
}

/** What one change comes to under the lease, decided before anything is written. */
export interface Decided extends Participant {
  outcome: WriteOutcome;
  /** Sent to the provider (in the group's one write). */
  write: boolean;
  /** Ownership changed before the write (claims, joins, leaves) and after it (a removal's). */
  ownersBefore: OwnerChange[];
  ownersAfter: OwnerChange[];
  /** The ledger's holding for a create that joined or wrote. */
  holding?: "created" | "shared" | "foreign";
  /** Another run's write carried it (write combining): that run's id. */
  writtenBy?: string;
  /** Whether the item is there once the changes before it in the group are made. */
  presentBefore?: boolean;
}

/**
 * Decides every participant in order; `owns` is null where ownership does not apply. `refused`:
 * changes decided as writes earlier under this lease that the provider refused or that were never
 * sent (docs/design.md, "A send of several requests refused half-way"): their item was absent and
 * nothing of this run's made it, so one present now is someone else's, never a claim-back.
 */
export function decideInOrder(
  parts: readonly Participant[],
  present: readonly boolean[],
  owns: readonly ItemOwnership[] | null,
  refused: ReadonlySet<Change> = new Set(),
): Decided[] {
  const items = new Map<string, { present: boolean; own: ItemOwnership | null }>();
  return parts.map((part, i) => {
    const id = `${part.change.item.opName}\n${part.change.item.key}`;
    const now = items.get(id) ?? { present: present[i] ?? false, own: owns?.[i] ?? null };
    const inLedger = part.change.inLedger === true && !refused.has(part.change);
    const d = { ...decide(part, now.present, now.own, inLedger), presentBefore: now.present };
    items.set(id, {
      present: d.write ? part.change.action === "create" : now.present,
      own: now.own && [...d.ownersBefore, ...d.ownersAfter].reduce(withChange, now.own),
    });
    return d;
  });
}

function withChange(own: ItemOwnership, change: OwnerChange): ItemOwnership {
  if (change.op !== own.op || change.key !== own.key) return own;
  switch (change.action) {
    case "add":
      return { ...own, owners: [...new Set([...own.owners, change.owner])].sort() };
    case "remove":
      return { ...own, owners: own.owners.filter((o) => o !== change.owner) };
    case "foreign":
      return { ...own, foreign: true };
    case "not-foreign":
      return { ...own, foreign: false };
  }
}

/**
 * The owner changes that take `baseline` back from where `made` left it, to where `kept` alone
 * would have: a write refused by its precondition wrote nothing, so the claims made for it are
 * withdrawn before deciding again — all but those of changes a send of several requests wrote
 * before the refusal (`kept`): those items are on the provider, and theirs.
 */
export function undoChanges(
  baseline: readonly ItemOwnership[],
  made: readonly OwnerChange[],
  kept: readonly OwnerChange[] = [],
): OwnerChange[] {
  const undo: OwnerChange[] = [];
  for (const start of baseline) {
    const after = made.reduce(withChange, start);
    const target = kept.reduce(withChange, start);
    const item = { op: start.op, key: start.key };
    for (const owner of after.owners.filter((o) => !target.owners.includes(o)))
      undo.push({ ...item, action: "remove", owner });
    for (const owner of target.owners.filter((o) => !after.owners.includes(o)))
      undo.push({ ...item, action: "add", owner });
    if (after.foreign !== target.foreign)
      undo.push({ ...item, action: target.foreign ? "foreign" : "not-foreign" });
  }
  return undo;
}

/** Each item's ownership with `changes` made to it (those of other items change nothing). */
export function withOwnerChanges(
  owns: readonly ItemOwnership[],
  changes: readonly OwnerChange[],
): ItemOwnership[] {
  return owns.map((own) => changes.reduce(withChange, own));
}

/**
 * One change, from the item's presence and ownership. Without ownership (no parent lease) presence
 * alone decides.
 */
function decide(part: Participant, present: boolean, own: ItemOwnership | null, inLedger: boolean): Decided {
  const { change, owner } = part;
  const none = { ownersBefore: [], ownersAfter: [] };
  if (change.action === "create") {
    const claim = own ? decideClaim(own, present, owner, { inLedger }) : null;
    if (claim?.kind === "join") {
      // Present and owned by this scope alone, yet not in its ledger (the writer sees ledger items
      // that are present only to claim them back): a write made for it whose answer was lost (a
      // crashed combining holder) or an orphan it adopts. Either way this run now holds it as its
      // creation, so a rollback of this run takes it away again. One its ledger names stays the
      // ledger's: nothing was written.
      const outcome: WriteOutcome =
        claim.holding !== "created" ? claim.holding : inLedger ? "already" : "written";
      return {
        ...part,
        outcome,
        write: false,
        ownersBefore: claim.changes,
        ownersAfter: [],
        holding: claim.holding,
      };
    }
    if (present) return { ...part, outcome: "already", write: false, ...none };
    // The scope becomes an owner before it creates the item, so a crash in between is resolved by
    // the intent and never leaves an item nobody owns.
    const ownersBefore = claim?.changes ?? [];
    return { ...part, outcome: "written", write: true, ownersBefore, ownersAfter: [], holding: "created" };
  }
  const release = own ? decideRelease(own, owner, { leaveOnly: change.leaveOnly === true }) : null;
  // Never the scope's to take away: with no ownership to give up, nothing is done at all.
  if (change.leaveOnly && !release) return { ...part, outcome: "left", write: false, ...none };
  if (release?.kind === "leave") {
    return { ...part, outcome: "left", write: false, ownersBefore: release.changes, ownersAfter: [] };
  }
  if (!present) {
    return {
      ...part,
      outcome: "already",
      write: false,
      ownersBefore: release?.changes ?? [],
      ownersAfter: [],
    };
  }
  // The last owner's removal: the ownership goes once the item is off the provider.
  return { ...part, outcome: "written", write: true, ownersBefore: [], ownersAfter: release?.changes ?? [] };
}

/** Items of one group share a batch kind, but each op reads and edits its own list in the state. */
export function keysOf(item: Item, state: unknown): string[] {
  if (!item.op.batch) throw new SponsonError("INTERNAL", `${item.opName} has no many-items form`);
  return item.op.batch.keys(state, item.params);
}

/** The object's state with every written change made to it, in order. */
export function editAll(writes: readonly Decided[]) {
  return (state: unknown) =>
    writes.reduce((acc, { change: { item, action } }) => {
      if (!item.op.batch) throw new SponsonError("INTERNAL", `${item.opName} has no many-items form`);
      return item.op.batch.edit(acc, item.params, action);
    }, state);
}

/** Groups changes by object, in the order each object first appears. */
export function groupChanges<C extends Change>(changes: readonly C[]): C[][] {
  const groups = new Map<string, C[]>();
  for (const change of changes) {
    const key = groupKeyOf(change.item);
    const group = groups.get(key);
    if (group) group.push(change);
    else groups.set(key, [change]);
  }
  return [...groups.values()];
}
