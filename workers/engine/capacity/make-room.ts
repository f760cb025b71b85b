/**
 * Eviction inside the critical section (docs/design.md, "Evicting stale scopes"): while the run's
 * own changes do not fit a list (each full list of the object in turn), the next stalest stale
 * scope's entries on that list join the group as that scope's removals (returned, for the section
 * to add), but only entries it alone owns (never foreign, never shared with a live scope) and the
 * run's own changes do not want (the run would join them: the removal would only let go). They are
 * then written in the group's one fenced write. Room still short: they are taken out again, nothing
 * is evicted, and the refusal counts the list as it is.
 */
import type { ItemOwnership } from "../../../shared/schemas/ownership";
import type { Inspection, OpContext } from "../../adapters/op-spec";
import type { ParentLease } from "../../locks/parent-lock";
import type { GroupContext } from "../contracts/group-context";
import { ownershipOf } from "../lease/owner-bookkeeping";
import type { Item } from "../plan/item";
import { type Change, decideInOrder, keysOf, type Participant } from "../rules/group-decisions";
import type { Candidate, Evictions } from "./eviction";
import { type CapOf, listIdOf, overCap } from "./list-fill";

export interface RoomInput {
  state: unknown;
  /** The group's parent lease (room is made only under one). */
  lease: ParentLease;
  ctx: OpContext;
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
  /** The list still past its cap after eviction (its id; null when the run fits). */
  short: string | null;
}

export async function makeRoom(group: GroupContext, evictions: Evictions, r: RoomInput): Promise<Room> {
  const { parts: w, fence } = group;
  const object = group.object as string;
  let all = [...r.all];
  let seen = [...r.seen];
  let owns = r.owns;
  // The run's own changes and the removals added, without any waiter; `leave` drops one more.
  const ownOnly = (leave: (i: number) => boolean = () => false) => {
    const mine = (i: number) => !("waiter" in (all[i] as Participant)) && !leave(i);
    return decideInOrder(
      all.filter((_, i) => mine(i)),
      seen.filter((_, i) => mine(i)).map((s) => s.present),
      owns.filter((_, i) => mine(i)),
    );
  };
  const none = (short: string | null): Room => ({
    owns: r.owns,
    added: [],
    seen: [],
    evicted: new Map(),
    short,
  });
  let fill = overCap(object, r.state, ownOnly(), r.capOf);
  if (!fill) return none(null);
  const kept = r.all.length;
  const evicted = new Map<Change, Candidate>();
  const taken = (item: Item) => [...evicted.keys()].some((change) => change.item === item);
  // An entry the run's own changes want too is never taken: its removal would only let it go (the
  // run joins it), and the stale scope would stop owning an entry its ledger keeps naming.
  const wanted = new Set(
    r.all.filter((p) => !("waiter" in p) && p.change.action === "create").map((p) => itemIdOf(p.change.item)),
  );
  const tried = new Set<string>();
  // Each list found full in turn: room made in one may leave another of the object still full.
  while (fill && !tried.has(listIdOf(fill))) {
    const list = fill;
    tried.add(listIdOf(list));
    const known = await evictions.ownershipOn(list);
    for await (const c of evictions.candidates(list)) {
      const items = evictions
        .entriesFor(c, list)
        .filter((item) => !taken(item) && !wanted.has(itemIdOf(item)));
      // The list's owners read answers for its own entries; only an entry of another op on a
      // whole-object cap (none today) is asked for.
      const unread = items.filter((item) => known(item) === undefined);
      const read =
        unread.length > 0
          ? await ownershipOf(w, {
              items: unread,
              lease: r.lease,
              fence,
              ctx: r.ctx,
              state: r.state,
            })
          : [];
      items.forEach((item) => {
        const own = known(item) ?? read?.[unread.indexOf(item)];
        const present = keysOf(item, r.state).includes(item.key);
        if (!own || !present || own.foreign || own.owners.length !== 1 || own.owners[0] !== c.owner) return;
        const change: Change = { item, action: "remove" };
        evicted.set(change, c);
        all.push({ change, owner: c.owner });
        seen.push({ present: true });
        owns = [...owns, own];
      });
      if (![...evicted.values()].includes(c)) await evictions.drop(c);
      const still = overCap(object, r.state, ownOnly(), r.capOf);
      if (!still || listIdOf(still) !== listIdOf(list)) break;
    }
    fill = overCap(object, r.state, ownOnly(), r.capOf);
  }
  if (fill) return none(listIdOf(fill));
  // A scope taken whose removals the fit turns out not to need (a cap on whole rules: its origin
  // shared a rule with a live scope, and a later scope freed a rule) is let go, stalest first.
  for (const c of new Set(evicted.values())) {
    const its = (i: number) => i >= kept && evicted.get((all[i] as Participant).change) === c;
    if (overCap(object, r.state, ownOnly(its), r.capOf)) continue;
    const stay = (_: unknown, i: number) => !its(i);
    [all, seen, owns] = [all.filter(stay), seen.filter(stay), owns.filter(stay)];
    for (const [change, of] of evicted) if (of === c) evicted.delete(change);
    await evictions.drop(c);
  }
  return { owns, added: all.slice(kept), seen: seen.slice(kept), evicted, short: null };
}

/** An item on this object: its op and key (docs/design.md, "Item identity"). */
const itemIdOf = (item: Item) => `${item.opName}\u0000${item.key}`;
