/** The parent lease an item write is made under: one at a time, only for that write. */
import { SponsonError } from "../../../shared/errors";
import { LOCK_DELAY_MS } from "../../../shared/lease-defaults";
import type { OwnedItem } from "../../../shared/schemas/ownership";
import type { LeaseSettings } from "../../locks/lease-options";
import { ParentLease } from "../../locks/parent-lock";
import type { WaitPolicy, WriterParts } from "../contracts/writer-parts";
import type { EngineDeps } from "../deps";
import type { Item } from "../plan/item";
import { runLeaseOptions } from "./lease-settings";
import { grantItemsOf } from "./owner-bookkeeping";

/** Which parent lease is asked for: `first`'s, waited for per `waiting`, its grant answering `items`. */
export interface ParentAsk {
  first: Item;
  waiting: WaitPolicy;
  items: readonly Item[];
}

/**
 * Runs `fn` under the item's parent lease (or with null where the item has no parent lock); the
 * grant answers the ownership of `items` (LeaseOptions.items).
 */
export async function withParent<T>(
  w: WriterParts,
  ask: ParentAsk,
  fn: (lease: ParentLease | null) => Promise<T>,
): Promise<T> {
  if (ask.first.parent === null || !w.deps.controls.parentLocks) return fn(null);
  const lease = await acquireParent(w, { ...ask, items: grantItemsOf(w, ask.items) }, (target, opts) =>
    ParentLease.acquire(target, w.run.id, opts),
  );
  try {
    return await fn(lease);
  } finally {
    await lease.release();
  }
}

/**
 * A critical section's maximum length (docs/design.md, "Lease protocol"): past it the parent
 * lease is not renewed, its deadline passes and the group fails (its intents stay), so a provider
 * call that hangs cannot hold an object's lock for ever.
 */
export const MAX_CRITICAL_SECTION_MS = 120_000;

/**
 * A parent where a write of this run has an unknown outcome (write/fence.ts) is not written again by this
 * run: its rollback would take the lock again before the lock-delay that keeps every other run out
 * of a late landing. Checked before any intent is touched, so the intents of the unknown write stay
 * as they are, for recovery.
 */
export function assertNotInDoubt(w: WriterParts, first: Item): void {
  if (first.parent === null || !w.inDoubt.has(first.parent)) return;
  throw new SponsonError(
    "LOCK_LOST",
    `${first.parent}: a write of this run there has an unknown outcome (it may still land); recovery resolves what it wanted`,
    // The unknown outcome is the earlier write's: this one was never sent.
    { parent: first.parent, outcome: "unknown", sent: false },
  );
}

/**
 * Takes `first`'s parent lease through `take`, its grant answering the ownership of `items`; a
 * held lock is reported naming the parent.
 */
export async function acquireParent<T>(
  w: WriterParts,
  { first, waiting, items }: Omit<ParentAsk, "items"> & { items: OwnedItem[] | undefined },
  take: (target: Awaited<ReturnType<EngineDeps["locks"]["parent"]>>, opts: LeaseSettings) => Promise<T>,
): Promise<T> {
  // Never wait for a parent lock without the scope lease still ours.
  w.scopeLease.assertHeld();
  assertNotInDoubt(w, first);
  const target = await w.deps.locks.parent(first.parent as string);
  try {
    return await take(
      target,
      runLeaseOptions(w.deps, waiting, {
        onWarning: (m) => w.run.warn(m),
        maxHoldMs: MAX_CRITICAL_SECTION_MS,
        // A holder that took this run's changes before its deadline has reported, or its lease
        // has ended and the lock-delay after it passed, this long after (docs/design.md, "Lease
        // protocol": the run's side).
        takenGraceMs: MAX_CRITICAL_SECTION_MS + w.deps.ttlMs + LOCK_DELAY_MS,
        origin: w.run.origin,
        onWaiting: (report) => w.run.waiting(report),
        ...(w.deps.controls.fencing ? {} : { lockDelayMs: 0 }),
        ...(items ? { items } : {}),
      }),
    );
  } catch (err) {
    if (err instanceof SponsonError && err.code === "LOCK_HELD") {
      // The lock object names its object already (docs/design.md, "Lock answers"); older answers did not.
      const named = err.message.includes(first.parent as string);
      throw new SponsonError("LOCK_HELD", named ? err.message : `${err.message} (parent ${first.parent})`, {
        ...err.detail,
        parent: first.parent,
      });
    }
    throw err;
  }
}
