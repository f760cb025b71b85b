/**
 * What a repository-bound token may see of the locks (docs/security.md, "Repository isolation"):
 * its repository's scope locks, and of a parent lock shared by several repositories only its own
 * runs. Pure: the held locks and the repository id in, the filtered view out.
 *
 * Run ids do not name a repository, but every run holding or waiting on a parent lock holds its
 * scope's lock (the scope lease comes first, docs/design.md, "Lease protocol"), and a scope lock's
 * key names its repository: the repository's runs are the holders and waiters of its scope locks.
 */
import { parseLockKey } from "../../shared/lock-keys";
import { parentVisible, runsInvolved } from "../../shared/lock-visibility";
import type { LockState, LockView } from "../../shared/schemas/lock";
import { OTHER_REPOSITORY_RUN, runHolderFor } from "../../shared/schemas/provenance";
import { type RepositoryRef, repositoryRefById } from "../../shared/schemas/repository";

/** Shown instead of another repository's run holding a shared parent lock. */
export const OTHER_REPOSITORY_HOLDER = OTHER_REPOSITORY_RUN;

export function repositoryRuns(held: readonly LockState[], repositoryId: number): Set<string> {
  const runs = new Set<string>();
  for (const state of held) {
    const parsed = parseLockKey(state.key);
    if (parsed?.kind !== "scope" || parsed.repositoryId !== repositoryId) continue;
    if (state.holder !== null) runs.add(state.holder);
    for (const w of state.waiters) runs.add(w.holder);
  }
  return runs;
}

/** One lock as the repository sees it, or null when it is another repository's scope lock. */
export function lockForRepository(state: LockState, repositoryId: number, runs: ReadonlySet<string>) {
  const parsed = parseLockKey(state.key);
  if (parsed?.kind === "scope") return parsed.repositoryId === repositoryId ? state : null;
  const visible = state.holder === null || runs.has(state.holder);
  const holder = visible ? state.holder : OTHER_REPOSITORY_HOLDER;
  // Nothing of another repository's run: not its id, not its provenance (docs/design.md, "Lock answers").
  const heldBy =
    visible || !state.heldBy
      ? state.heldBy
      : {
          ...runHolderFor(OTHER_REPOSITORY_HOLDER, null, null),
          since: state.heldBy.since,
          expiresAt: state.heldBy.expiresAt,
        };
  // How often others took the lock is theirs: the count of grants, and a hidden holder's token, go.
  const { lastToken: _count, ...rest } = state;
  return {
    ...rest,
    holder,
    token: visible ? state.token : null,
    heldBy,
    // Positions stay the queue's own: a run behind another repository's waiters is told its true place.
    waiters: state.waiters.filter((w) => runs.has(w.holder)),
    history: state.history.filter((h) => runs.has(h.holder)),
    // Each repository's share of a list: another repository's is counted, never numbered.
    ...(state.fills
      ? {
          fills: state.fills.map((f) =>
            f.repositories
              ? {
                  ...f,
                  repositories: f.repositories.map((r) =>
                    r.id === repositoryId ? r : { id: null, entries: r.entries },
                  ),
                }
              : f,
          ),
        }
      : {}),
  } satisfies LockView;
}

/** The lock with each fill's repository shares named from the service's configuration. */
export function withRepositoryNames<S extends LockView>(state: S, repositories: readonly RepositoryRef[]): S {
  if (!state.fills) return state;
  return {
    ...state,
    fills: state.fills.map((f) =>
      f.repositories
        ? {
            ...f,
            repositories: f.repositories.map((r) =>
              r.id === null ? r : { ...r, name: repositoryRefById(r.id, repositories).name },
            ),
          }
        : f,
    ),
  };
}

/** The held locks a repository may see: its scope locks, and the parent locks its runs hold or wait on. */
export function locksForRepository(
  held: readonly LockState[],
  repositoryId: number,
  owning: ReadonlyMap<string, ReadonlySet<number>> = new Map(),
): LockView[] {
  const runs = repositoryRuns(held, repositoryId);
  return held.flatMap((state) => {
    const parsed = parseLockKey(state.key);
    if (parsed?.kind !== "scope") {
      // A hold is an admin's word to every repository that uses the object (docs/security.md,
      // "What a repository sees of another"): its runs' locks, and a held one where it owns entries.
      const owners = owning.get(state.key) ?? new Set<number>();
      const listed =
        runsInvolved(state, runs) ||
        (state.hold !== undefined && parentVisible(state, { id: repositoryId, runs }, owners));
      if (!listed) return [];
    }
    const view = lockForRepository(state, repositoryId, runs);
    return view === null ? [] : [view];
  });
}

/** The held parent locks whose listing for the repository turns on who owns their entries (`owning`). */
export function holdsToCheck(held: readonly LockState[], repositoryId: number): string[] {
  const runs = repositoryRuns(held, repositoryId);
  return held
    .filter((s) => parseLockKey(s.key)?.kind !== "scope" && s.hold !== undefined && !runsInvolved(s, runs))
    .map((s) => s.key);
}
