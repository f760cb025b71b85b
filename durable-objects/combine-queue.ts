/**
 * The in-memory side of write combining (docs/design.md, "Write combining: the lock object's side"):
 * what a queued waiter brought and whether a holder took it. Pure: no `this`, no I/O, no clock.
 */
import type { CombinedAnswer, CombinedOutcome, QueuedChange } from "../shared/schemas/combine";

export interface CombineSlot {
  changes: QueuedChange[];
  /**
   * The token of the lease that took the changes. Taken only while that lease lives: once it ends
   * (release, expiry, force-release, takeover) the token is stale and the changes are untaken with
   * no hook on those paths, and a late report under it is refused by the fence.
   */
  takenBy: number | null;
  /**
   * Some holder took the changes at some point. A holder whose lease ended without reporting may
   * have written them, so from then on nobody can say the waiter's changes were never written.
   */
  everTaken: boolean;
  /** Some changes came back, or some were already written for it: the rest is the waiter's own to write. */
  settled: boolean;
  /** The open calls of the waiter that can take "every change written" for an answer. */
  done: Array<(answer: CombinedAnswer) => void>;
}

export function newSlot(changes: QueuedChange[]): CombineSlot {
  return { changes, takenBy: null, everTaken: false, settled: false, done: [] };
}

/**
 * Whether the holder of `liveToken` is offered these changes: they are not settled, and no live
 * lease took them (a holder is never offered twice what it took, even if it asks again).
 */
export function isOffered(slot: CombineSlot, liveToken: number): boolean {
  return slot.changes.length > 0 && !slot.settled && slot.takenBy !== liveToken;
}

/** Taken by the live lease (a `takenBy` of an ended lease no longer counts). */
export function isTaken(slot: CombineSlot, liveToken: number | null): boolean {
  return slot.takenBy !== null && slot.takenBy === liveToken;
}

/** The same changes (a retried call), by their ids: a change's id names its action and item. */
export function sameChanges(a: readonly QueuedChange[], b: readonly QueuedChange[]): boolean {
  const ids = new Set(a.map((c) => c.id));
  return a.length === b.length && b.every((c) => ids.has(c.id));
}

/** Every change has an outcome: nothing is left for the waiter to write. */
export function coversAll(changes: readonly QueuedChange[], outcomes: readonly CombinedOutcome[]): boolean {
  const written = new Set(outcomes.map((o) => o.id));
  return changes.every((c) => written.has(c.id));
}

/** Outcomes of two reports for one waiter, the later one winning for a change both name. */
export function mergeOutcomes(
  earlier: readonly CombinedOutcome[],
  later: readonly CombinedOutcome[],
): CombinedOutcome[] {
  const byId = new Map(earlier.map((o) => [o.id, o]));
  for (const o of later) byId.set(o.id, o);
  return [...byId.values()];
}
