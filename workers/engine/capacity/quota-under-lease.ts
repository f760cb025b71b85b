/**
 * The shares of a list under the parent lease, with its cap (docs/design.md, "A share of each
 * list"): what a scope and its repository hold there according to the lock's ownership records (the
 * counts its read answered, `OwnershipShares`), with a trial's ownership changes made, must not grow
 * past a quota. Pure. Counted in entries of the op on the object (all of its lists there, when it
 * has several): an entry several scopes share counts for each scope, and once for a repository.
 *
 * The run's own scope counts what its plan leaves it holding: entries of its ledger the plan no
 * longer names (`retiring`) go in the same run, after its writes (docs/design.md, "Run algorithm",
 * step 7), so swapping one entry for another keeps a share full; and entries its plan names on the
 * same list that another of its group writes adds (`elsewhere`: the object through another
 * connection) are counted as added already, so the first group decides the run's whole change to
 * the list and a later one finds the earlier one's additions counted once. A carried waiter's plan is not
 * known to the holder: it is counted with nothing retiring, and a waiter refused so writes its
 * changes itself, where its own exact check decides (as a list's cap: "Lists at their cap").
 */
import type { ItemOwnership, OwnedItem, OwnershipShares } from "../../../shared/schemas/ownership";
import { scopeOfOwner } from "../../../shared/schemas/ownership";
import type { RepositoryRef } from "../../../shared/schemas/repository";
import type { Item } from "../plan/item";
import type { Decided } from "../rules/group-decisions";
import type { Quota, QuotaBreach } from "./quota";

/** What a critical section checks every trial's shares with (capacity/section-capacity.ts). */
export interface SharesInput {
  shares: OwnershipShares;
  known: readonly ItemOwnership[];
  /** The holder's retiring entries (`LeaseQuotaInput.retiring`): its own shares only. */
  retiring: readonly OwnedItem[];
  elsewhere: Elsewhere;
  quotaOf: (item: Item) => Quota | null;
  /** A repository as the answer names it (a waiter's may be another than the holder's). */
  repositoryOf: (id: number) => RepositoryRef;
}

/**
 * A carried waiter's shares in a trial (the holder's changes and the waiters admitted before it,
 * with its own): counted with nothing retiring, since its plan is not the holder's to know.
 */
export function waiterOverQuota(
  input: SharesInput,
  { object, trial, waiter }: { object: string; trial: readonly Decided[]; waiter: string },
): QuotaBreach | null {
  const owner = trial.find((d) => "waiter" in d && d.waiter === waiter)?.owner;
  const scope = owner === undefined ? null : scopeOfOwner(owner);
  if (owner === undefined || !scope) return null;
  return leaseOverQuota({
    ...input,
    object,
    decisions: trial,
    retiring: [],
    who: { owner, repository: input.repositoryOf(scope.repositoryId) },
  });
}

/**
 * The holder's planned entries on the lists that its other group writes add
 * (lease/owner-bookkeeping.ts `RunList.elsewhere`): its own once its run is done, whoever is checked.
 */
export interface Elsewhere {
  owner: string;
  items: ReadonlyArray<OwnedItem & { inLedger: boolean }>;
}

export interface LeaseQuotaInput {
  object: string;
  /** The lock's counts, read with `known` (the same view). */
  shares: OwnershipShares;
  /** The ownership of every item `decisions` touch and of every retiring one, as read. */
  known: readonly ItemOwnership[];
  /** The trial's decisions, in order: whoever makes them, their ownership changes are counted. */
  decisions: readonly Decided[];
  /** Whose shares are checked (an owner, `ownerOf`), and its repository's name for the answer. */
  who: { owner: string; repository: RepositoryRef };
  /** Items of `who`'s ledger its run removes after its writes (none for a carried waiter). */
  retiring: readonly OwnedItem[];
  /** The holder's entries its other groups add (its own check's `who`, or a waiter's holder). */
  elsewhere: Elsewhere;
  quotaOf: (item: Item) => Quota | null;
}

const idOf = (i: OwnedItem) => `${i.op}\n${i.key}`;

/** The first share of `who` the trial would take past its quota, or null. */
export function leaseOverQuota(input: LeaseQuotaInput): QuotaBreach | null {
  const { who, decisions } = input;
  const holder = scopeOfOwner(who.owner);
  if (!holder) return null;
  const before = new Map(input.known.map((k) => [idOf(k), k.owners]));
  const after = new Map(before);
  for (const d of decisions)
    for (const change of [...d.ownersBefore, ...d.ownersAfter]) {
      if (!("owner" in change)) continue;
      const owners = after.get(idOf(change)) ?? [];
      after.set(
        idOf(change),
        change.action === "add"
          ? [...new Set([...owners, change.owner])]
          : owners.filter((o) => o !== change.owner),
      );
    }
  for (const item of input.elsewhere.items)
    after.set(idOf(item), [...new Set([...(after.get(idOf(item)) ?? []), input.elsewhere.owner])]);
  for (const item of input.retiring)
    after.set(
      idOf(item),
      (after.get(idOf(item)) ?? []).filter((o) => o !== who.owner),
    );
  // Only a list the trial makes `who` an owner on more entries of can be refused.
  const gains = decisions.filter(
    (d) =>
      d.change.action === "create" && d.ownersBefore.some((c) => c.action === "add" && c.owner === who.owner),
  );
  const inRepository = (owners: readonly string[] | undefined) =>
    (owners ?? []).some((o) => scopeOfOwner(o)?.repositoryId === holder.repositoryId);
  for (const op of new Set(gains.map((d) => d.change.item.opName))) {
    const item = (gains.find((d) => d.change.item.opName === op) as Decided).change.item;
    const quota = input.quotaOf(item);
    if (!quota) continue;
    const ids = [...after.keys()].filter((id) => id.startsWith(`${op}\n`));
    const owned = (m: Map<string, string[]>, id: string) => (m.get(id) ?? []).includes(who.owner);
    // An entry the scope's ledger names is held already (a claim-back: "Evicting stale scopes").
    const claimedBack = [
      ...gains.filter((d) => d.change.item.opName === op && d.change.inLedger).map(ownedOf),
      ...(input.elsewhere.owner === who.owner ? input.elsewhere.items : []).filter(
        (i) => i.op === op && i.inLedger,
      ),
    ].filter((i) => !owned(before, idOf(i)));
    const scopeHolds = countOf(input.shares.owners, op, (o) => o.owner === who.owner);
    const scopeDelta = ids.reduce((n, id) => n + Number(owned(after, id)) - Number(owned(before, id)), 0);
    const repoHolds = countOf(input.shares.repositories, op, (r) => r.repositoryId === holder.repositoryId);
    const repoDelta = ids.reduce(
      (n, id) => n + Number(inRepository(after.get(id))) - Number(inRepository(before.get(id))),
      0,
    );
    const scope = { holds: scopeHolds + claimedBack.length, after: scopeHolds + scopeDelta };
    const repository = {
      holds: repoHolds + claimedBack.filter((i) => !inRepository(before.get(idOf(i)))).length,
      after: repoHolds + repoDelta,
    };
    const breach = {
      object: input.object,
      op,
      holder: { repository: who.repository, environment: holder.environment, scope: holder.scope },
      scope,
      repository,
      checked: "lease" as const,
    };
    if (quota.perScope !== undefined && scope.after > quota.perScope && scope.after > scope.holds)
      return { ...breach, share: "scope", max: quota.perScope };
    if (
      quota.perRepository !== undefined &&
      repository.after > quota.perRepository &&
      repository.after > repository.holds
    )
      return { ...breach, share: "repository", max: quota.perRepository };
  }
  return null;
}

function ownedOf(d: Decided): OwnedItem {
  return { op: d.change.item.opName, key: d.change.item.key };
}

function countOf<T extends { op: string; entries: number }>(
  rows: readonly T[],
  op: string,
  match: (row: T) => boolean,
): number {
  return rows.find((r) => r.op === op && match(r))?.entries ?? 0;
}
