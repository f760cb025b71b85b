/**
 * What a scope lock of 0.1.x kept, merged into the scope's receipt (pure; docs/upgrading.md,
 * "Intents kept by scope locks of 0.1.x"). 0.1.x numbered each put of intents in the lock
 * (`lockSeq`) and each receipt save recorded how far it accounted for them (`intentsThrough`):
 * a holder that saved, then died before the release that let the lock drop its copies, left rows
 * its receipt already holds or resolved. Those are skipped, never merged again: resolving them a
 * second time would undo, against a newer ledger, what that save recorded. The others join the
 * receipt's own intents once each, and the receipt then accounts for every number the lock gave,
 * so a drain that saved and died before its drop merges nothing the second time either.
 */
import type { Intent, Receipt } from "../../shared/schemas/receipt";
import { sameItem } from "../engine/plan/item";

export interface LegacyMerge {
  /** The receipt to save; the same object when there is nothing to save. */
  receipt: Receipt;
  /** Rows that joined the receipt's intents. */
  merged: number;
}

/** One run's intent of one item and action (docs/design.md, "Item identity"). */
function sameIntent(a: Intent, b: Intent): boolean {
  return a.runId === b.runId && a.action === b.action && sameItem(a, b);
}

export function mergeLegacyIntents(receipt: Receipt, kept: readonly Intent[]): LegacyMerge {
  const through = receipt.intentsThrough ?? 0;
  const open = kept.filter((k) => k.lockSeq === undefined || k.lockSeq > through);
  const missing = open.filter((k) => !receipt.intents.some((i) => sameIntent(i, k)));
  const highest = Math.max(through, ...kept.map((k) => k.lockSeq ?? 0));
  if (missing.length === 0 && highest === through) return { receipt, merged: 0 };
  return {
    receipt: {
      ...receipt,
      intents: [...receipt.intents, ...missing],
      ...(highest > 0 ? { intentsThrough: highest } : {}),
    },
    merged: missing.length,
  };
}
