/**
 * A scope's durable intents while upgrading (docs/design.md, "Intent recovery"): its receipt's,
 * and those a scope lock of a version before 0.2.0 still keeps for a run that died before its
 * final save (no lock takes new ones; the sweep asks, through the pending-intents index). A lock's copy that the
 * receipt already accounts for (`intentsThrough`: its holder saved, then died before the release
 * that lets the lock drop them) is not an intent any more: it was resolved, or the receipt has it.
 */
import type { Intent, Receipt } from "../../shared/schemas/receipt";

/** One run's intent of one item and action (docs/design.md, "Item identity"). */
export function sameIntent(a: Intent, b: Intent): boolean {
  return (
    a.runId === b.runId && a.action === b.action && a.op === b.op && a.key === b.key && a.parent === b.parent
  );
}

/** The lock's copies this receipt does not account for yet. */
export function openLockIntents(receipt: Pick<Receipt, "intentsThrough">, kept: readonly Intent[]): Intent[] {
  const through = receipt.intentsThrough ?? 0;
  return kept.filter((k) => k.lockSeq === undefined || k.lockSeq > through);
}

/** The receipt's intents and the lock's open ones, each once. */
export function durableIntents(
  receipt: Pick<Receipt, "intents" | "intentsThrough">,
  kept: readonly Intent[],
) {
  const open = openLockIntents(receipt, kept).filter((k) => !receipt.intents.some((i) => sameIntent(i, k)));
  return [...receipt.intents, ...open];
}
