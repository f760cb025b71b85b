/**
 * Eviction inside the critical section (docs/design.md, "Evicting stale scopes"): while the run's
 * own changes do not fit, the next stalest stale scope's entries on the object join the group as
 * that scope's removals (returned, for the section to add), but only entries it alone owns (never foreign, never shared with a live
 * scope). They are then written in the group's one fenced write. Room still short: they are taken
 * out again, nothing is evicted, and the refusal counts the list as it is.
 */
import type { ItemOwnership } from "../../../shared/schemas/ownership";
import type { Inspection } from "../../adapters/op-spec";
import { type Change, decideInOrder, keysOf, type Participant } from "../rules/group-decisions";
import type { Candidate, Evictions } from "./eviction";
import { type CapOf, overCap } from "./list-fill";

export interface RoomInput {
  object: string;
  state: unknown;
  capOf: CapOf;
  /** The group's participants, their presence and ownership, as decided so far. */
  all: readonly Participant[];
  seen: readonly Inspection[];
  owns: ItemOwnership[];
}

export interface Room {
  owns: ItemOwnership[];
  /** The evicted scopes' removals to add to the group, and their presence (present, all). */
  added: Participant[];
  seen: Inspection[];
  /** Each added removal's change, and whose entry it is. */
  evicted: Map<Change, Candidate>;
}

export async function makeRoom(evictions: Evictions, r: RoomInput): Promise<Room> {
  const all = [...r.all];
  const seen = [...r.seen];
  const mine = (i: number) => !("waiter" in (all[i] as Participant));
  let owns = r.owns;
  const ownOnly = () =>
    decideInOrder(
      all.filter((_, i) => mine(i)),
      seen.filter((_, i) => mine(i)).map((s) => s.present),
      owns.filter((_, i) => mine(i)),
    );
  const none: Room = { owns: r.owns, added: [], seen: [], evicted: new Map() };
  const fill = overCap(r.object, r.state, ownOnly(), r.capOf);
  if (!fill) return none;
  const kept = r.all.length;
  const evicted = new Map<Change, Candidate>();
  const { candidates, ownership } = await evictions.candidates(fill);
  for (const c of candidates) {
    for (const { item } of c.entries) {
      // Ownership as the list's owners were read under this lease: an entry not on the list as
      // read is not there to remove (and its removal would make no room).
      const own = ownership(item);
      const present = keysOf(item, r.state).includes(item.key);
      if (!own || !present || own.foreign || own.owners.length !== 1 || own.owners[0] !== c.owner) continue;
      const change: Change = { item, action: "remove" };
      evicted.set(change, c);
      all.push({ change, owner: c.owner });
      seen.push({ present: true });
      owns = [...owns, own];
    }
    if (!overCap(r.object, r.state, ownOnly(), r.capOf))
      return { owns, added: all.slice(kept), seen: seen.slice(kept), evicted };
  }
  return none;
}
