/**
 * Removes ledger entries (docs/design.md, "Run algorithm": apply step 8, destroy and rollback):
 * what a run created when it rolls back, what a destroy or a dropped line no longer wants. Newest
 * first, each under the parent lock recorded in the ledger. Always waits for those locks, bounded
 * by the wait timeout: giving up would leave resources behind.
 */
import type { LedgerEntry } from "../../shared/schemas/receipt";
import type { EngineDeps } from "./deps";
import { rethrowCrash } from "./deps";
import { itemOfRecord } from "./item";
import type { ItemWriter } from "./item-writer";
import { errorInfo, type Run } from "./run";

export async function removeEntries(
  deps: EngineDeps,
  run: Run,
  writer: ItemWriter,
  entries: readonly LedgerEntry[],
  outcome: "removed" | "rolled-back",
): Promise<boolean> {
  let allRemoved = true;
  for (const entry of [...entries].reverse()) {
    const base = {
      id: entry.line,
      op: entry.op,
      key: entry.key,
      parent: entry.parent,
      diff: "delete" as const,
    };
    try {
      const item = itemOfRecord(entry, deps.ops, deps.connections, run.environment);
      const written = await writer.write(item, "remove", { wait: true, waitTimeoutMs: deps.waitTimeoutMs });
      // Others still own it, or it is foreign: the scope let go and the entry stays.
      run.line({ ...base, result: written === "left" ? "released" : outcome });
    } catch (err) {
      rethrowCrash(err);
      allRemoved = false;
      if (outcome === "rolled-back") {
        run.warn(`rollback of ${entry.key} (line ${entry.line}) failed: ${errorInfo(err).message}`);
      } else {
        run.line({ ...base, result: "failed", error: errorInfo(err) });
      }
    }
  }
  return allRemoved;
}
