/**
 * What an evicted scope's receipt and the audit trail say of an eviction (docs/design.md,
 * "Evicting stale scopes"): one note per list, since a scope may have made room in two lists of the
 * object, or in two named lists of one op (a bucket's CORS rules), each capped on its own.
 */
import type { EvictionNote } from "../../../shared/schemas/eviction";
import type { Item } from "../plan/item";
import { itemListId, listNameOf } from "./list-fill";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Why the scope was stale, and its last run (for an idle scope's age in days). */
export interface StaleShare {
  stale: "closed" | "idle";
  lastRunAt: number | null;
}

export function evictionNotes(
  runId: string,
  share: StaleShare,
  items: readonly Item[],
  now: number,
): EvictionNote[] {
  return [...byListOf(items).values()].map((ofList): EvictionNote => {
    const first = ofList[0] as Item;
    const list = listNameOf(first);
    return {
      runId,
      object: first.parent ?? first.key,
      op: first.opName,
      ...(list !== undefined ? { list } : {}),
      keys: ofList.map((i) => i.key),
      reason: share.stale,
      ...(share.stale === "idle" && share.lastRunAt !== null
        ? { idleDays: Math.floor((now - share.lastRunAt) / DAY_MS) }
        : {}),
      at: now,
    };
  });
}

/** `items` by the list they are in: op, and the list's name when the op has several. */
function byListOf(items: readonly Item[]): Map<string, Item[]> {
  const lists = new Map<string, Item[]>();
  for (const item of items) {
    const id = itemListId(item);
    lists.set(id, [...(lists.get(id) ?? []), item]);
  }
  return lists;
}
