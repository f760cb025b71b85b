/**
 * Which repositories' bound sockets may hear of one lock's change (docs/security.md, "The lock
 * feed" and "What a repository sees of another"): a scope lock's own repository; a parent lock's,
 * each repository that uses its object — one of its scopes owns an entry there, or one of its runs
 * holds or waits on the lock, confirmed by that run's own scope lock, as the Worker's views decide
 * (workers/lock-views/). Read from the lock objects, read-only, and only while bound sockets are
 * open. A run that has just left a lock whose object its repository owns nothing on is no longer
 * heard of there; its scope lock's own change, which follows, refreshes its page.
 */
import type { Env } from "../shared/env";
import { parseLockKey } from "../shared/lock-keys";
import { namedRuns, owningRepositories, parentVisible } from "../shared/lock-visibility";
import type { LeaseLockApi } from "../shared/rpc/lease-lock";
import { rpcStub } from "../shared/rpc/stub";
import type { LockState } from "../shared/schemas/lock";

type Lock = (key: string) => LeaseLockApi;

/** The repositories among `bound` that may hear of a change of `key`. */
export async function audienceOf(env: Env, key: string, bound: ReadonlySet<number>): Promise<Set<number>> {
  const parsed = parseLockKey(key);
  if (bound.size === 0 || parsed === null) return new Set();
  if (parsed.kind === "scope") return new Set(bound.has(parsed.repositoryId) ? [parsed.repositoryId] : []);
  const lock: Lock = (k) => rpcStub(env.LEASE_LOCK, k);
  const [state, ownership] = await Promise.all([lock(key).read({ key }), lock(key).ownership({ key })]);
  const owners = owningRepositories(ownership.items);
  const heard = await Promise.all(
    [...bound].map(async (id) => {
      if (owners.has(id)) return id;
      const runs = await confirmedRuns(lock, state, id);
      return parentVisible(state, { id, runs }, owners) ? id : null;
    }),
  );
  return new Set(heard.filter((id): id is number => id !== null));
}

/** The runs `state` names whose own scope lock, in the repository, says they hold or wait on it. */
async function confirmedRuns(lock: Lock, state: LockState, repositoryId: number): Promise<Set<string>> {
  const confirmed = await Promise.all(
    namedRuns(state).map(async ({ run, scope }) => {
      const key = `scope:${repositoryId}/${scope}`;
      const parsed = parseLockKey(key);
      if (parsed?.kind !== "scope" || parsed.repositoryId !== repositoryId) return null;
      const own = await lock(key).read({ key });
      return own.holder === run || own.waiters.some((w) => w.holder === run) ? run : null;
    }),
  );
  return new Set(confirmed.filter((run): run is string => run !== null));
}
