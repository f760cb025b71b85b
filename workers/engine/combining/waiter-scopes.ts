/**
 * Whether each combining waiter's run still holds its scope lease (docs/design.md, "Write
 * combining"): asked when the holder takes the queue and again right before its write. A waiter
 * found gone, or whose scope lock cannot be read, has its changes returned; the holder's own group
 * goes on.
 */
import { SponsonError } from "../../../shared/errors";
import type { QueuedChange } from "../../../shared/schemas/combine";
import { scopeOfOwner } from "../../../shared/schemas/ownership";
import { errorInfo } from "../run/run";
import type { WriterParts } from "../write/writer-parts";
import type { Queued } from "./combining";

/**
 * A waiter's change is written only while its run still holds its scope lease: a run that died
 * while queued may have had its scope recovered already, and a change written after that would be
 * owned by a scope whose ledger never says so.
 */
export async function stillRunning(
  w: WriterParts,
  change: Pick<QueuedChange, "owner" | "runId"> | undefined,
): Promise<boolean> {
  const scope = change ? scopeOfOwner(change.owner) : null;
  if (!change || !scope) return false;
  try {
    return await w.deps.locks.holdsScope(scope.repositoryId, scope.environment, scope.scope, change.runId);
  } catch (err) {
    // Not knowing is not "still running": that waiter's changes go back (it writes them itself),
    // and the holder's own group goes on.
    w.run.warn(
      `could not read the scope lease of queued run ${change.runId}: ${String(err)}; its changes go back`,
    );
    return false;
  }
}

/** The waiters (of `queued`) whose run no longer holds its scope lease, asked in parallel. */
export async function goneWaiters(w: WriterParts, queued: readonly Queued[]): Promise<string[]> {
  const first = new Map<string, Queued>();
  for (const q of queued) if (!first.has(q.waiter)) first.set(q.waiter, q);
  const checked = await Promise.all(
    [...first.values()].map(async (q) => ((await stillRunning(w, q)) ? null : q.waiter)),
  );
  return checked.filter((waiter): waiter is string => waiter !== null);
}

export function goneBack(q: Queued) {
  return { id: q.id, error: gone(q) };
}

export function gone(change: Pick<QueuedChange, "runId">) {
  return errorInfo(
    new SponsonError(
      "LOCK_LOST",
      `run ${change.runId} no longer holds its scope lease: its change goes back`,
    ),
  );
}
