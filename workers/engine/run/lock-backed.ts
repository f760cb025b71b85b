/**
 * Step 6's look at the lock for a scope whose receipt carries evictions (docs/design.md, "Run
 * algorithm" step 6; "Evicting stale scopes"). Another run changed this scope's ownership on the
 * objects its notes name, so "in the ledger and present" alone does not make an item `unchanged`
 * there: the lock must name the scope an owner too, or another scope's destroy removes an entry
 * this one still wants. Each such object's lock is read once, read-only and without a lease (like
 * the peek of recent writes), alongside the provider read. A scope without evictions makes no call.
 */

import type { Item } from "../plan/item";
import { ownerOf } from "../rules/ownership";
import { rethrowCrash } from "../simulated-crash";
import type { RunContext } from "./run-context";

/**
 * The items of `held` (the ledger names each) whose lock does not name this scope an owner: they go
 * to the writer, which claims them back under the parent lease. A lock that cannot be read counts
 * as naming nobody: the writer reads ownership under the lease anyway.
 */
export async function unbackedByLock(
  { deps, run, session }: Pick<RunContext, "deps" | "run" | "session">,
  held: readonly Item[],
): Promise<Set<Item>> {
  const noted = new Set((session.receipt.evictions ?? []).map((note) => note.object));
  if (noted.size === 0 || !deps.controls.ownership || !deps.controls.parentLocks) return new Set();
  const byParent = new Map<string, Item[]>();
  for (const item of held)
    if (item.parent !== null && noted.has(item.parent))
      byParent.set(item.parent, [...(byParent.get(item.parent) ?? []), item]);
  const me = ownerOf(run);
  const unbacked = await Promise.all(
    [...byParent].map(async ([parent, items]) => {
      try {
        const target = await deps.locks.parent(parent);
        const { items: owned } = await target.ownership({});
        const mine = new Set(owned.filter((o) => o.owners.includes(me)).map((o) => `${o.op}\n${o.key}`));
        return items.filter((item) => !mine.has(`${item.opName}\n${item.key}`));
      } catch (err) {
        rethrowCrash(err);
        run.warn(
          `the ownership of ${parent} was not read before the lease: ${String(err)}; its items are claimed under it`,
        );
        return items;
      }
    }),
  );
  return new Set(unbacked.flat());
}
