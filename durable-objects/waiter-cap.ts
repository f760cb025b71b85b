/**
 * How many runs of one repository may wait at one lock (docs/security.md, "Fair use"). A queue is
 * first come, first granted and lives in the object's memory, so without a cap one repository's
 * runs could line up by the hundred in front of every other repository's at a shared object. Past
 * the cap the next run of that repository is refused at once, never queued: `RATE_LIMITED` (429,
 * retriable), rule `lock.waiters-per-repository`. A run is its repository's by the origin it
 * described (the Worker builds it from the repository it resolved; docs/design.md, "Lock
 * answers"); a run without one (the sweep's, an admin's adoption) is no repository's and is
 * never capped. The same run asking again keeps its place (WaiterQueue.reattach) and is not
 * counted twice. Pure: the queue and the asker in, the refusal or null out.
 */
import { fail, type Result } from "../shared/errors";
import type { RunOrigin } from "../shared/schemas/provenance";

/** The most runs of one repository waiting at one lock at once. */
export const MAX_WAITERS_PER_REPOSITORY = 32;

export function waiterCapRefusal(
  queue: ReadonlyArray<{ origin: RunOrigin | null }>,
  asker: { key: string; origin?: RunOrigin },
): Result<never> | null {
  const repositoryId = asker.origin?.repositoryId;
  if (repositoryId === undefined) return null;
  const waiting = queue.filter((w) => w.origin?.repositoryId === repositoryId).length;
  if (waiting < MAX_WAITERS_PER_REPOSITORY) return null;
  return fail(
    "RATE_LIMITED",
    `${waiting} runs of ${asker.origin?.repository ?? "this repository"} wait for ${asker.key} already, ` +
      `the most one repository may queue at one lock: run the job again when fewer of its runs wait`,
    { rule: "lock.waiters-per-repository", lock: asker.key, limit: MAX_WAITERS_PER_REPOSITORY },
  );
}
