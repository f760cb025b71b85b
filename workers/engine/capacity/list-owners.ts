/**
 * Who holds the entries of a list at its cap (docs/design.md, "Lists at their cap"), for the
 * LIST_FULL answer: read under the parent lease (the lock's ownership of each entry), then each
 * owning scope of the caller's repository's state and last run. Repository isolation
 * (docs/security.md): the caller's repository's scopes are named; other repositories' are only
 * counted, from the ownership alone: reading their scopes would make one repository's refusal
 * cost a read per scope of every other repository on the object, under the lease they queue at.
 */
import { type ItemOwnership, scopeOfOwner } from "../../../shared/schemas/ownership";
import type { ParentLease } from "../../locks/parent-lock";
import type { EngineDeps } from "../deps";
import { pullRequestOf, type StaleReason, staleReason } from "./stale-scopes";

/** One owning scope of the caller's repository. */
export interface ScopeShare {
  scope: string;
  environment: string;
  pullRequest: number | null;
  /** When its last run finished (epoch ms); null when it has none on record. */
  lastRunAt: number | null;
  /** How many of the list's entries it owns (an entry shared by two scopes counts for both). */
  entries: number;
  stale: StaleReason | null;
}

export interface ListOwners {
  /** The caller's repository's owning scopes, stalest first (closed, then idle, oldest run first). */
  scopes: ScopeShare[];
  /**
   * Other repositories' owning scopes: counted from the lock's ownership, never named nor read;
   * `stale` is always null (not read: whether they are stale would take a read per scope).
   */
  otherRepositories: { scopes: number; entries: number; stale: null };
  /**
   * Each repository's share of the list, largest first (docs/design.md, "A share of each list"):
   * its entries (one its scopes share counts once) and owning scopes; only the caller's is named.
   */
  repositories: Array<{ name: string | null; scopes: number; entries: number }>;
  /** Entries that were there before any scope claimed them: never removed by a scope. */
  foreign: number;
  /** Entries nobody owns that are not foreign (added by hand since: the orphan path's). */
  unowned: number;
  /** The commands that free room: one destroy per stale scope of the caller's repository. */
  freeRoom: string[];
}

export interface OwnersInput {
  deps: EngineDeps;
  lease: ParentLease;
  /** The caller's repository: only its scopes are named. */
  repository: { id: number; name: string };
  op: string;
  /** The list's entries (keys) as read under the lease. */
  keys: readonly string[];
}

/**
 * The answer, and each key's ownership it was counted from: eviction takes a stale scope's entries
 * from the same read (make-room.ts), since nothing else changes ownership while the lease is held.
 */
export interface OwnersRead {
  answer: ListOwners;
  items: readonly ItemOwnership[];
}

const READS_AT_ONCE = 8;

export async function listOwners({ deps, lease, repository, op, keys }: OwnersInput): Promise<OwnersRead> {
  const view = await lease.owners([...new Set(keys)].map((key) => ({ op, key })));
  const counts = new Map<string, number>();
  let [foreign, unowned] = [0, 0];
  for (const item of view.items) {
    if (item.foreign) foreign += 1;
    else if (item.owners.length === 0) unowned += 1;
    for (const owner of item.owners) counts.set(owner, (counts.get(owner) ?? 0) + 1);
  }
  const owners = [...counts].flatMap(([owner, entries]) => {
    const s = scopeOfOwner(owner);
    return s ? [{ ...s, entries }] : [];
  });
  const others = owners.filter((o) => o.repositoryId !== repository.id);
  const mine = (
    await inBatches(
      owners.filter((o) => o.repositoryId === repository.id),
      READS_AT_ONCE,
      (o) => shareOf(deps, { ...o, name: repository.name }),
    )
  ).sort(stalestFirst);
  const answer: ListOwners = {
    scopes: mine,
    otherRepositories: {
      scopes: others.length,
      entries: others.reduce((n, o) => n + o.entries, 0),
      stale: null,
    },
    repositories: repositoryShares(view.items, repository),
    foreign,
    unowned,
    freeRoom: mine
      .filter((s) => s.stale !== null)
      .map((s) => `sponson destroy --env ${s.environment} --scope ${s.scope}`),
  };
  return { answer, items: view.items };
}

/** Per repository: the entries any of its scopes owns, and how many of its scopes own any. */
function repositoryShares(
  items: readonly ItemOwnership[],
  caller: { id: number; name: string },
): ListOwners["repositories"] {
  const shares = new Map<number, { scopes: Set<string>; entries: number }>();
  for (const item of items) {
    const byRepository = new Map<number, string[]>();
    for (const owner of item.owners) {
      const s = scopeOfOwner(owner);
      if (s) byRepository.set(s.repositoryId, [...(byRepository.get(s.repositoryId) ?? []), owner]);
    }
    for (const [id, owners] of byRepository) {
      const share = shares.get(id) ?? { scopes: new Set<string>(), entries: 0 };
      for (const owner of owners) share.scopes.add(owner);
      share.entries += 1;
      shares.set(id, share);
    }
  }
  return [...shares]
    .map(([id, s]) => ({
      name: id === caller.id ? caller.name : null,
      scopes: s.scopes.size,
      entries: s.entries,
    }))
    .sort((a, b) => b.entries - a.entries || Number(b.name !== null) - Number(a.name !== null));
}

interface Owner {
  repositoryId: number;
  name: string;
  environment: string;
  scope: string;
  entries: number;
}

async function shareOf(deps: EngineDeps, o: Owner): Promise<ScopeShare> {
  const address = {
    repository: { id: o.repositoryId, name: o.name },
    environment: o.environment,
    scope: o.scope,
  };
  const [state, stored] = await Promise.all([
    deps.gate ? deps.gate.read(o.repositoryId, o.scope) : null,
    deps.store.read(address),
  ]);
  const lastRunAt = stored.receipt.runs.reduce<number | null>((t, r) => Math.max(t ?? 0, r.finishedAt), null);
  const stale = staleReason({
    status: state?.status ?? null,
    lastRunAt,
    now: deps.clock.now(),
    ...(deps.staleAfterDays?.(o.environment) !== undefined
      ? { staleAfterDays: deps.staleAfterDays(o.environment) as number }
      : {}),
  });
  return {
    scope: o.scope,
    environment: o.environment,
    pullRequest: pullRequestOf(o.scope),
    lastRunAt,
    entries: o.entries,
    stale,
  };
}

/** Closed first, then idle, then live; within each the oldest last run first. */
function stalestFirst(a: ScopeShare, b: ScopeShare): number {
  const rank = (s: ScopeShare) => (s.stale === "closed" ? 0 : s.stale === "idle" ? 1 : 2);
  return rank(a) - rank(b) || (a.lastRunAt ?? 0) - (b.lastRunAt ?? 0);
}

async function inBatches<T, R>(items: readonly T[], size: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size)
    out.push(...(await Promise.all(items.slice(i, i + size).map(f))));
  return out;
}

/** Who holds one list: the op and its keys as read under the lease. */
export type OwnersOf = (list: { op: string; keys: readonly string[] }) => Promise<OwnersRead>;

/**
 * listOwners at most once per list under one lease: eviction chooses from the answer and a refusal
 * that follows reports the same one, instead of reading the ownership and every owner's receipt
 * twice while the lease is held. A failed read is not kept.
 */
export function ownersOnce(input: Omit<OwnersInput, "op" | "keys">): OwnersOf {
  const known = new Map<string, Promise<OwnersRead>>();
  return ({ op, keys }) => {
    const id = [op, ...[...new Set(keys)].sort()].join("\u0000");
    let answer = known.get(id);
    if (!answer) {
      answer = listOwners({ ...input, op, keys });
      known.set(id, answer);
      answer.catch(() => known.delete(id));
    }
    return answer;
  };
}
