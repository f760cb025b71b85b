/**
 * The critical section's two steps for providers that forget a write (docs/design.md): the read
 * under the lease with the parent lock's recent writes merged over it, and, after the provider
 * accepted the write, what it made true handed to the lock to remember; and the reads before any
 * lease merged the same way. All do nothing for ops without `forgetsWritesForMs`, without a
 * parent lease, or with the `recentWrites` control off (controls.ts).
 */

import { SponsonError } from "../../../shared/errors";
import type { BatchForm, OpContext, Params } from "../../adapters/op-spec";
import { OVERLOADED_RETRY_AFTER_SECONDS } from "../../locks/acquire-loop";
import type { ParentLease } from "../../locks/parent-lock";
import type { EngineDeps } from "../deps";
import type { Decided } from "../rules/group-decisions";
import { mergeRecentWrites, recentWritesOf } from "../rules/recent-writes";
import { rethrowCrash } from "../simulated-crash";

const applies = (deps: EngineDeps, batch: BatchForm, lease: ParentLease | null): lease is ParentLease =>
  lease !== null && deps.controls.recentWrites && (batch.forgetsWritesForMs ?? 0) > 0;

/** One object's read: its many-items form, the context and params it is read with. */
export interface ObjectRead {
  batch: BatchForm;
  ctx: OpContext;
  params: Params;
}

export async function readUnderLease(
  deps: EngineDeps,
  { batch, ctx, params, lease }: ObjectRead & { lease: ParentLease | null },
): Promise<unknown> {
  const state = await batch.read(ctx, params);
  if (!applies(deps, batch, lease)) return state;
  const remembered = await lease.recentWrites();
  return mergeRecentWrites(batch, state, remembered, (name) => deps.ops.get(name), deps.clock.now());
}

/**
 * A read made before any lease (a run's first look, the orphan search) with the writes the
 * object's lock remembers merged over it the same way, read without the lease: a write the
 * provider does not show yet is neither reported missing nor taken for an orphan.
 */
export async function readBeforeLease(
  deps: EngineDeps,
  { batch, ctx, params, parent }: ObjectRead & { parent: string | null },
): Promise<unknown> {
  if (
    parent === null ||
    !deps.controls.parentLocks ||
    !deps.controls.recentWrites ||
    !(batch.forgetsWritesForMs ?? 0)
  )
    return batch.read(ctx, params);
  const [state, remembered] = await Promise.all([
    batch.read(ctx, params),
    // A lock object that cannot answer (overloaded, restarting) stops the look, not only its merge:
    // the unmerged read would report a lagging entry missing and take it over as this run's, or
    // name it an orphan (docs/design.md, "Reads before the lease merge too").
    deps.locks
      .parent(parent)
      .then((target) => target.peekRecentWrites({}))
      .catch((err: unknown) => {
        rethrowCrash(err);
        throw memoryUnavailable(parent);
      }),
  ]);
  return mergeRecentWrites(batch, state, remembered, (name) => deps.ops.get(name), deps.clock.now());
}

/** Retriable, with nothing written: the look is made again once the lock answers. */
function memoryUnavailable(parent: string): SponsonError {
  return new SponsonError(
    "LOCK_UNAVAILABLE",
    `the lock object for ${parent} could not say what it wrote recently, and the provider may not show those writes yet; nothing was written: try again in ${OVERLOADED_RETRY_AFTER_SECONDS} s`,
    { lock: parent, retryAfterSeconds: OVERLOADED_RETRY_AFTER_SECONDS },
  );
}

export async function rememberWritten(
  deps: EngineDeps,
  batch: BatchForm,
  lease: ParentLease | null,
  writes: readonly Decided[],
): Promise<void> {
  await rememberChanges(
    deps,
    batch,
    lease,
    writes.map(({ change }) => ({
      opName: change.item.opName,
      key: change.item.key,
      params: change.item.params,
      action: change.action,
    })),
  );
}

/** The same for changes written outside a run's critical section (the admin's orphan removal). */
export async function rememberChanges(
  deps: EngineDeps,
  batch: BatchForm,
  lease: ParentLease | null,
  changes: Parameters<typeof recentWritesOf>[0],
): Promise<void> {
  if (!applies(deps, batch, lease)) return;
  const windowMs = deps.recentWritesWindowMs ?? (batch.forgetsWritesForMs as number);
  await lease.rememberWrites(recentWritesOf(changes, deps.clock.now(), windowMs));
}
