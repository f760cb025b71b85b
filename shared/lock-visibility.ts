/**
 * Whether a repository-bound caller may see a parent lock at all (docs/security.md, "What a
 * repository sees of another"): only when its repository uses the object — one of its scopes owns
 * an entry there, or one of its runs holds or waits on the lock. Anything else is answered as if
 * the lock did not exist, so the caller learns neither the object's identity nor its activity.
 * Pure: the lock's state, its owners and the repository's runs in; the Worker's views
 * (workers/lock-views/) and the lock feed (durable-objects/lock-feed.ts) read them.
 */
import type { LockState } from "./schemas/lock";
import { scopeOfOwner } from "./schemas/ownership";

/** The repositories whose scopes own an entry on the object (owners are named by `ownerOf`). */
export function owningRepositories(items: ReadonlyArray<{ owners: readonly string[] }>): Set<number> {
  const ids = new Set<number>();
  for (const item of items)
    for (const owner of item.owners) {
      const scope = scopeOfOwner(owner);
      if (scope !== null) ids.add(scope.repositoryId);
    }
  return ids;
}

/** Whether one of `runs` holds the lock or waits on it. */
export function runsInvolved(state: LockState, runs: ReadonlySet<string>): boolean {
  return (state.holder !== null && runs.has(state.holder)) || state.waiters.some((w) => runs.has(w.holder));
}

/** Whether the repository uses the parent lock's object: it owns an entry there, or one of its runs is at the lock. */
export function parentVisible(
  state: LockState,
  repository: { id: number; runs: ReadonlySet<string> },
  owners: ReadonlySet<number>,
): boolean {
  return owners.has(repository.id) || runsInvolved(state, repository.runs);
}

/**
 * The runs a lock names (holder and waiters) with the `<environment>/<scope>` each described: the
 * scope lock that confirms a run is a repository's is `scope:<repository id>/<that>`
 * (docs/design.md, "Lock answers").
 */
export function namedRuns(state: LockState): Array<{ run: string; scope: string }> {
  const named = [
    { run: state.holder, scope: state.heldBy?.scope },
    ...state.waiters.map((w) => ({ run: w.holder, scope: w.by?.scope })),
  ];
  return named.flatMap(({ run, scope }) => (run !== null && scope ? [{ run, scope }] : []));
}

/**
 * Whether an entry is another repository's alone: scopes own it and none is `repositoryId`'s, and
 * it was not there before them (a foreign entry is a person's, whoever joined it since). What a
 * preview tells of such an entry is what it tells of an absent one.
 */
export function entryHiddenFrom(
  item: { owners: readonly string[]; foreign: boolean } | undefined,
  repositoryId: number,
): boolean {
  if (item === undefined || item.foreign || item.owners.length === 0) return false;
  return item.owners.every((o) => scopeOfOwner(o)?.repositoryId !== repositoryId);
}
