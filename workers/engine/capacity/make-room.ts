/**
 * Eviction inside the critical section (docs/design.md, "Evicting stale scopes"): while the run's
 * own changes do not fit, the next stalest stale scope's entries on the object join the group as
 * that scope's removals, but only entries it alone owns (never foreign, never shared with a live
 * scope). They are then written in the group's one fenced write. Room still short: they are taken
 * out again, nothing is evicted, and the refusal counts the list as it is.
 */
import type { ItemOwnership } from "../../../shared/schemas/ownership";
import type { Inspection, OpContext } from "../../adapters/op-spec";
import type { ParentLock } from "../../locks/parent-lock";
import { type Change, decideInOrder, keysOf, type Participant } from "../rules/group-decisions";
import type { Fence } from "../write/fence";
import { ownershipOf } from "../write/owner-bookkeeping";
import type { WriterParts } from "../write/writer-parts";
import type { Candidate, Evictions } from "./eviction";
import { type CapOf, overCap } from "./list-fill";

export interface RoomInput {
  object: string;
  state: unknown;
  lease: ParentLock;
  fence: Fence;
  ctx: OpContext;
  capOf: CapOf;
  /** The group's participants, their presence and ownership: extended in place with removals. */
  all: Participant[];
  seen: Inspection[];
  owns: ItemOwnership[];
}

export interface Room {
  owns: ItemOwnership[];
  added: boolean;
  /** Each added removal's change, and whose entry it is. */
  evicted: Map<Change, Candidate>;
}

export async function makeRoom(w: WriterParts, evictions: Evictions, r: RoomInput): Promise<Room> {
  const mine = (i: number) => !("waiter" in (r.all[i] as Participant));
  let owns = r.owns;
  const ownOnly = () =>
    decideInOrder(
      r.all.filter((_, i) => mine(i)),
      r.seen.filter((_, i) => mine(i)).map((s) => s.present),
      owns.filter((_, i) => mine(i)),
    );
  const none: Room = { owns: r.owns, added: false, evicted: new Map() };
  const fill = overCap(r.object, r.state, ownOnly(), r.capOf);
  if (!fill) return none;
  const kept = r.all.length;
  const evicted = new Map<Change, Candidate>();
  for (const c of await evictions.candidates(r.lease, fill)) {
    const items = c.entries.map((e) => e.item);
    const theirs = await ownershipOf(w, {
      items,
      lease: r.lease,
      fence: r.fence,
      ctx: r.ctx,
      state: r.state,
    });
    items.forEach((item, i) => {
      const own = theirs?.[i];
      const present = keysOf(item, r.state).includes(item.key);
      if (!own || !present || own.foreign || own.owners.length !== 1 || own.owners[0] !== c.owner) return;
      const change: Change = { item, action: "remove" };
      evicted.set(change, c);
      r.all.push({ change, owner: c.owner });
      r.seen.push({ present: true });
      owns = [...owns, own];
    });
    if (!overCap(r.object, r.state, ownOnly(), r.capOf)) return { owns, added: evicted.size > 0, evicted };
  }
  r.all.length = kept;
  r.seen.length = kept;
  return none;
}
