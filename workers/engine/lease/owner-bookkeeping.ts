/**
 * Each item's ownership as the parent lock holds it (docs/design.md, "Ownership of shared
 * entries"), kept in step before anything is decided from it: the first holder after an upgrade
 * rebuilds it from every receipt's ledger, and the first look at an op's list marks what is on it
 * and owned by no scope as foreign (it was there before any scope claimed it).
 */
import type {
  ItemOwnership,
  Locator,
  OwnedItem,
  OwnerChange,
  OwnershipShares,
} from "../../../shared/schemas/ownership";
import { repositoryRefById } from "../../../shared/schemas/repository";
import type { OpContext } from "../../adapters/op-spec";
import type { ParentLease } from "../../locks/parent-lock";
import { mayName } from "../../receipts/parent-tags";
import type { GroupFence } from "../contracts/group-context";
import type { WriterParts } from "../contracts/writer-parts";
import { type Item, sameItem } from "../plan/item";
import { keysOf } from "../rules/group-decisions";
import { ownerOf } from "../rules/ownership";

/** Where the item's list lives on its object: what the sweep lists to find orphans. */
function locatorOf(item: Item): Locator {
  return { op: item.opName, connection: item.connection, params: item.params };
}

/** The items a group decides the ownership of, as the lock object names them. */
export function ownedItemsOf(items: readonly Item[]): OwnedItem[] {
  return items.map((i) => ({ op: i.opName, key: i.key }));
}

/**
 * The items a parent lease's grant should answer the ownership of (LeaseOptions.items): none
 * where ownership does not apply, so the object reads nothing for it.
 */
export function grantItemsOf(w: WriterParts, items: readonly Item[]): OwnedItem[] | undefined {
  return w.deps.controls.ownership ? [...ownedItemsOf(items), ...alongOf(runListOf(w, items))] : undefined;
}

/**
 * The run's other entries on a group's lists, which its shares count (docs/design.md, "A share of
 * each list"). None outside an apply.
 */
export interface RunList {
  /**
   * Entries of the run's ledger on the group's object, of the group's ops, that its plan no longer
   * names: the run removes them after its writes ("Run algorithm", step 7), so they are counted out.
   */
  retiring: OwnedItem[];
  /**
   * Entries the run's later groups create or join on the same lists (`WriterParts.ahead`: the object
   * reached through another connection, another group write under its own lease). The run's change
   * to a list is one: the first group decides it whole, these counted as the scope's already.
   * `inLedger`: a claim-back of what its ledger names (`Change.inLedger`), held already.
   */
  elsewhere: Array<OwnedItem & { inLedger: boolean }>;
}

export function runListOf(w: WriterParts, items: readonly Item[]): RunList {
  const planned = w.planned;
  const parent = items[0]?.parent ?? null;
  if (!planned || parent === null) return { retiring: [], elsewhere: [] };
  const ops = new Set(items.map((i) => i.opName));
  const onList = (e: { op: string; parent: string | null }) => e.parent === parent && ops.has(e.op);
  const retiring = w.session.receipt.ledger
    .filter((e) => onList(e) && !planned.some((p) => sameItem(p, e)))
    .map((e) => ({ op: e.op, key: e.key }));
  const elsewhere = new Map<string, OwnedItem & { inLedger: boolean }>();
  for (const { item, inLedger } of w.ahead ?? []) {
    const ref = { op: item.opName, key: item.key, parent: item.parent };
    if (!onList(ref) || items.some((i) => i.opName === ref.op && i.key === ref.key)) continue;
    elsewhere.set(`${ref.op}\n${ref.key}`, { op: ref.op, key: ref.key, inLedger: inLedger === true });
  }
  return { retiring, elsewhere: [...elsewhere.values()] };
}

/** The run list's entries whose ownership is read along with a group's. */
export function alongOf({ retiring, elsewhere }: RunList): OwnedItem[] {
  return [...retiring, ...elsewhere.map(({ op, key }) => ({ op, key }))];
}

/** What the ownership of a group's items is read with, under its parent lease. */
export interface OwnershipRead {
  items: readonly Item[];
  /** Items whose ownership is read along (the run's other entries on the lists: `runListOf`). */
  extra?: readonly OwnedItem[];
  lease: ParentLease | null;
  /** The group's fence: its first read may be the view the grant carried (write/fence.ts). */
  fence: GroupFence;
  ctx: OpContext;
  /** The object as read under the lease (null for ops without the many-items form). */
  state: unknown;
}

/**
 * Null where ownership does not apply (no parent lease; the `ownership` control off). The first
 * decision under a lease decides from the view its grant carried, where that names every item (a
 * waiter's items taken under write combining are not in it); any other reads it from the object.
 */
export async function ownershipOf(w: WriterParts, read: OwnershipRead): Promise<ItemOwnership[] | null> {
  return (await groupOwnership(w, read))?.owns ?? null;
}

/** A group's ownership: its items', the `extra` items', and the shares the lock counted with them. */
export interface GroupOwnership {
  owns: ItemOwnership[];
  extra: ItemOwnership[];
  /** Null from a lock object of the version before (it counts none). */
  shares: OwnershipShares | null;
}

export async function groupOwnership(
  w: WriterParts,
  { items, extra = [], lease, fence, ctx, state }: OwnershipRead,
): Promise<GroupOwnership | null> {
  if (lease === null || !w.deps.controls.ownership) return null;
  const wanted = [...ownedItemsOf(items), ...extra];
  let view = await fence.owners(wanted);
  if (!view.rebuilt) {
    const rebuilt = await ledgerOwners(w, (items[0] as Item).parent as string);
    // The rebuild may make this run's own scope an owner (its receipt's ledger and intents): an
    // ownership change like any other, so only while the scope is still ours (a round trip).
    const me = ownerOf(w.run);
    if (rebuilt.some((c) => c.action === "add" && c.owner === me)) await w.scopeLease.check();
    await lease.changeOwners(rebuilt, { rebuilt: true });
    view = await lease.owners(wanted);
  }
  const firstLooks = items.filter(
    (item, i) =>
      !view.listedOps.includes(item.opName) && items.findIndex((o) => o.opName === item.opName) === i,
  );
  for (const item of firstLooks) {
    // Later additions by nobody we know are orphans, not foreign.
    const present = state !== null ? keysOf(item, state) : await item.op.list(ctx, item.params);
    const known = await lease.owners(present.map((key) => ({ op: item.opName, key })));
    const foreign: OwnerChange[] = known.items
      .filter((i) => i.owners.length === 0 && !i.foreign)
      .map(({ op, key }) => ({ op, key, action: "foreign" }));
    await lease.changeOwners(foreign, { locator: locatorOf(item) });
  }
  if (firstLooks.length > 0) view = await lease.owners(wanted);
  const found = ({ op, key }: OwnedItem): ItemOwnership =>
    view.items.find((v) => v.op === op && v.key === key) ?? { op, key, owners: [], foreign: false };
  return {
    owns: ownedItemsOf(items).map(found),
    extra: extra.map(found),
    shares: view.shares ?? null,
  };
}

/**
 * Every ledger entry and every older version's intent on `parent`, in every receipt, as an owner
 * (the upgrade's rebuild). An older version's intent (no `claims` mark) names an item its run may
 * have written (a create whose ledger entry was never saved) or was taking away (an unfinished
 * removal): until recovery resolves it the scope is its owner, so the first look does not mark it
 * foreign — which would keep it for good. Not so the intents of a run still going (this one, or one
 * holding its scope lease now): that run decides its own items under this lease, and counting it
 * an owner would make it take a foreign entry for its own creation.
 */
/** Whether a run still holds the scope's lease, asked once per run (this run: always going). */
function runsGoingIn(
  w: WriterParts,
  scope: { repositoryId: number; environment: string; scope: string },
): (runId: string) => Promise<boolean> {
  const live = new Map<string, Promise<boolean>>();
  return (runId) => {
    if (runId === w.run.id) return Promise.resolve(true);
    let going = live.get(runId);
    if (!going) {
      going = w.deps.locks
        .holdsScope(scope.repositoryId, scope.environment, scope.scope, runId)
        .catch((err) => {
          // Not knowing counts as going: its intents are not made owners. At worst the first
          // look marks a dead run's orphan foreign (kept, never lost), and a going run (a
          // combining waiter) never finds a pre-existing entry counted as its own creation.
          w.run.warn(
            `could not read the scope lease of run ${runId}: ${String(err)}; its intents are not counted`,
          );
          return true;
        });
      live.set(runId, going);
    }
    return going;
  };
}

async function ledgerOwners(w: WriterParts, parent: string): Promise<OwnerChange[]> {
  const changes: OwnerChange[] = [];
  for (const summary of await w.deps.store.listScopes()) {
    if (!mayName(summary.parents, parent)) continue;
    // The id is what ownership keys on; the name is only for display.
    const address = {
      repository: repositoryRefById(summary.repositoryId, []),
      environment: summary.environment,
      scope: summary.scope,
    };
    const { receipt } = await w.deps.store.read(address);
    const runGoing = runsGoingIn(w, summary);
    const records = [...receipt.ledger, ...receipt.intents.filter((i) => i.parent === parent)];
    for (const entry of records) {
      if (entry.parent !== parent) continue;
      // An intent of this version's runs says nothing of ownership: its run claimed before writing
      // (a crash before the claim wrote nothing), and the claim is already at the lock.
      if ("action" in entry && (entry.claims === true || (await runGoing(entry.runId)))) continue;
      changes.push({ op: entry.op, key: entry.key, action: "add", owner: ownerOf(address) });
    }
  }
  return changes;
}
