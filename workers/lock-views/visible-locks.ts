/**
 * The locks a repository-bound caller may read, with the reads each decision needs (docs/security.md,
 * "What a repository sees of another"): another repository's scope lock, and a parent lock whose
 * object the repository does not use (no entry of its scopes there, none of its runs at the lock),
 * do not exist for it — the same 404 as a key nothing ever took, so the answer tells it nothing.
 * The decisions are pure (shared/lock-visibility.ts, ./repository-view.ts); this reads their inputs.
 */
import type { Env } from "../../shared/env";
import { SponsonError } from "../../shared/errors";
import { parseLockKey } from "../../shared/lock-keys";
import { owningRepositories, parentVisible } from "../../shared/lock-visibility";
import type { LockState, LockView } from "../../shared/schemas/lock";
import type { RepositoryRef } from "../../shared/schemas/repository";
import { lockStub, readLock } from "../locks/lock-target";
import { repositoryRunsFor } from "./repository-runs";
import { holdsToCheck, lockForRepository, locksForRepository } from "./repository-view";

/** The repositories whose scopes own an entry on the lock's object (read-only, no lease). */
export async function ownersOf(env: Env, key: string): Promise<Set<number>> {
  return owningRepositories((await lockStub(env, key).ownership({ key })).items);
}

/** The one answer for a lock the repository may not see, whether or not it exists. */
export function noLockFor(key: string, repository: RepositoryRef): SponsonError {
  return new SponsonError("NOT_FOUND", `no lock ${key} for repository ${repository.name}`);
}

/** The held locks as the repository may list them: a held lock's owners are read only when they decide. */
export async function heldLocksFor(
  env: Env,
  held: readonly LockState[],
  repositoryId: number,
): Promise<LockView[]> {
  const keys = holdsToCheck(held, repositoryId);
  const owning = new Map(await Promise.all(keys.map(async (k) => [k, await ownersOf(env, k)] as const)));
  return locksForRepository(held, repositoryId, owning);
}

/** Whether the repository may see the parent lock `state` (its owners read here), with its runs there. */
export async function parentSeenBy(
  env: Env,
  state: LockState,
  repository: RepositoryRef,
  owners?: ReadonlySet<number>,
): Promise<{ visible: boolean; runs: Set<string> }> {
  const [runs, owning] = await Promise.all([
    repositoryRunsFor(env, state, repository.id),
    owners ?? ownersOf(env, state.key),
  ]);
  return { visible: parentVisible(state, { id: repository.id, runs }, owning), runs };
}

/** One lock as the repository may read it (`GET /v1/locks/{key}`), or NOT_FOUND. */
export async function lockSeenBy(env: Env, key: string, repository: RepositoryRef): Promise<LockView> {
  const parsed = parseLockKey(key);
  if (parsed?.kind === "scope") {
    if (parsed.repositoryId !== repository.id) throw noLockFor(key, repository);
    return readLock(env, key);
  }
  const state = await readLock(env, key);
  const { visible, runs } = await parentSeenBy(env, state, repository);
  if (!visible) throw noLockFor(key, repository);
  return lockForRepository(state, repository.id, runs) ?? state;
}
