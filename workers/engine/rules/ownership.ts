/**
 * Ownership decisions (docs/design.md, "Ownership of shared entries"). Pure: the item writer reads
 * the item's ownership and presence under the parent lease and asks what to do. An item is taken
 * off the provider only when its last owner — this scope — leaves and it is not foreign; otherwise a scope only
 * joins or leaves its owners. A present item nobody owns is foreign once a scope joins it, whether
 * it was there at the first look or added by hand after it — unless the scope's own ledger names it.
 */
import type { Holding, ItemOwnership, OwnerChange } from "../../../shared/schemas/ownership";

export { ownerOf } from "../../../shared/schemas/ownership";

export type ClaimDecision =
  /** Present: the scope joins (shared, or foreign when nobody owned it); nothing is written. */
  | { kind: "join"; holding: Holding; changes: OwnerChange[] }
  /** Absent: the scope becomes an owner before it creates the item. */
  | { kind: "create"; changes: OwnerChange[] };

/**
 * `inLedger`: the scope's ledger already names the item (it is claiming back an entry the lock
 * stopped naming it owner of): present and owned by nobody, it is the scope's own, not a person's.
 */
export function decideClaim(
  own: ItemOwnership,
  present: boolean,
  me: string,
  { inLedger = false }: { inLedger?: boolean } = {},
): ClaimDecision {
  const item = { op: own.op, key: own.key };
  const add: OwnerChange = { ...item, action: "add", owner: me };
  const others = own.owners.filter((o) => o !== me);
  if (present) {
    if (others.length > 0) return { kind: "join", holding: "shared", changes: [add] };
    if (own.foreign) return { kind: "join", holding: "foreign", changes: [add] };
    // Owned by this scope alone: its own earlier write (its ownership survived a crash), or named
    // by its ledger (the lock lost track of it: the ledger's record is what the scope wrote).
    if (own.owners.includes(me) || inLedger) return { kind: "join", holding: "created", changes: [add] };
    // Present and owned by nobody, though the list was looked at before (what was there then is
    // already foreign): a person added it by hand since. Every write of ours takes its ownership
    // before it creates the item, so nothing of ours ends up here. It stays theirs: the scope
    // shares it as foreign and never removes it; only an admin does (the orphan path).
    return { kind: "join", holding: "foreign", changes: [{ ...item, action: "foreign" }, add] };
  }
  // A foreign entry that was taken away is no longer there to protect: whoever creates it owns it.
  const unmark: OwnerChange[] = own.foreign ? [{ ...item, action: "not-foreign" }] : [];
  return { kind: "create", changes: [...unmark, add] };
}

export type ReleaseDecision =
  /** Others still want it, it was there before any scope, or this scope never owned it: only this scope's record goes. */
  | { kind: "leave"; changes: OwnerChange[] }
  /** This scope is its last owner and no one else put it there: take it off the provider, then leave. */
  | { kind: "remove"; changes: OwnerChange[] };

/**
 * `leaveOnly`: the scope's ownership is a claim no write of its own backs (a create the provider
 * refused, whose claim could not be taken back): it only leaves, whoever else owns the item.
 */
export function decideRelease(
  own: ItemOwnership,
  me: string,
  { leaveOnly = false }: { leaveOnly?: boolean } = {},
): ReleaseDecision {
  const changes: OwnerChange[] = [{ op: own.op, key: own.key, action: "remove", owner: me }];
  const others = own.owners.filter((o) => o !== me);
  // Only an owner takes an item away: every write of ours claims the item before it is sent, so an
  // item this scope never owned (a create intent left before its claim, a rollback of a write
  // never made) is someone else's — a hand-added entry stays. Only the record goes.
  const mine = own.owners.includes(me) && !leaveOnly;
  return others.length > 0 || own.foreign || !mine ? { kind: "leave", changes } : { kind: "remove", changes };
}
