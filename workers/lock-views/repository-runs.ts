/**
 * Which runs a lock names belong to a repository (docs/security.md, "Repository isolation"), for
 * the views of one lock: the runs of its held scope locks (`repositoryRuns`, from the listing),
 * and any run the lock names whose own scope lock, in that repository, says it is that run's. A
 * run describes its scope in every lease and queue place it takes (docs/design.md, "Lock
 * answers"), and a scope lock's key names its repository by id, so one read of that scope lock
 * settles it from the run's first second, whether or not the listing shows it yet.
 */
import type { Env } from "../../shared/env";
import { parseLockKey } from "../../shared/lock-keys";
import { namedRuns } from "../../shared/lock-visibility";
import type { LockState } from "../../shared/schemas/lock";
import { readLock } from "../locks/lock-target";
import { listHeldLocks } from "./held-locks";
import { repositoryRuns } from "./repository-view";

/** Whether `run` holds or waits on the scope lock `key` of `repositoryId` (false for a foreign key). */
async function ownsScope(env: Env, key: string, repositoryId: number, run: string): Promise<boolean> {
  const parsed = parseLockKey(key);
  if (parsed?.kind !== "scope" || parsed.repositoryId !== repositoryId) return false;
  const scope = await readLock(env, key);
  return scope.holder === run || scope.waiters.some((w) => w.holder === run);
}

/** The repository's runs among those one lock's views may name. */
export async function repositoryRunsFor(
  env: Env,
  state: LockState,
  repositoryId: number,
): Promise<Set<string>> {
  const [held, confirmed] = await Promise.all([
    listHeldLocks(env),
    Promise.all(
      namedRuns(state).map(async ({ run, scope }) =>
        (await ownsScope(env, `scope:${repositoryId}/${scope}`, repositoryId, run)) ? run : null,
      ),
    ),
  ]);
  const runs = repositoryRuns(held, repositoryId);
  for (const run of confirmed) if (run !== null) runs.add(run);
  return runs;
}
