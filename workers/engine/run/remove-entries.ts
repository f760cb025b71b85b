/**
 * Removes ledger entries (docs/design.md, "Run algorithm": apply step 8, destroy and rollback):
 * what a run created when it rolls back, what a destroy or a dropped line no longer wants. Newest
 * first, grouped by the object recorded in the ledger: one parent lease and one write per object.
 * Always waits for those locks, until the run's one wait deadline (giving up would leave resources
 * behind); past it each lock is asked once, and an entry not removed stays in the ledger.
 */
import { factsOf } from "../../../shared/errors";
import type { LedgerEntry } from "../../../shared/schemas/receipt";
import { itemOfRecord, sameItem } from "../plan/item";
import { rethrowCrash } from "../simulated-crash";
import { type Change, groupChanges, type Written } from "../write/item-writer";
import type { RunContext } from "./run-context";
import { alwaysWaiting } from "./scope-request";

export async function removeEntries(
  { deps, run, writer, waiting }: RunContext,
  entries: readonly LedgerEntry[],
  outcome: "removed" | "rolled-back",
): Promise<boolean> {
  let allRemoved = true;
  const failed = (entry: LedgerEntry, err: unknown) => {
    rethrowCrash(err);
    allRemoved = false;
    const error = run.errorOf(err, [entry.line]);
    if (outcome !== "rolled-back") {
      run.line({ ...baseOf(entry), result: "failed", error });
      return;
    }
    run.warn(`rollback of ${entry.key} (line ${entry.line}) failed: ${error.message}`);
    // A removal that may have landed (or may still land) may have taken the entry away: the line
    // no longer says `created`, but what is so. One that surely wrote nothing leaves it created (a
    // removal refused before it was sent: its object in doubt from an earlier write); a rollback
    // tried again keeps the first failure's words.
    const said = run.lines.some((l) => l.id === entry.line && sameItem(l, entry) && l.result === "failed");
    const facts = factsOf(error);
    const mayHaveLanded = facts.outcome === "unknown" && facts.sent !== false;
    if (mayHaveLanded && !said)
      run.line({
        ...baseOf(entry),
        result: "failed",
        error: { ...error, message: `its rollback's removal: ${error.message}` },
      });
  };
  const changes: Array<Change & { entry: LedgerEntry }> = [];
  // Newest first, one change per item: a receipt of an older version may hold an item twice (two
  // lines); removing it once drops both entries.
  const newestFirst = [...entries]
    .reverse()
    .filter((e, i, all) => all.findIndex((o) => sameItem(o, e)) === i);
  for (const entry of newestFirst) {
    try {
      changes.push({
        item: itemOfRecord(entry, deps.ops, deps.connections, run.environment),
        action: "remove",
        entry,
      });
    } catch (err) {
      failed(entry, err);
    }
  }
  for (const group of groupChanges(changes)) {
    try {
      const written = await writer.writeGroup(group, alwaysWaiting(waiting));
      // Others still own it, or it is foreign: the scope let go and the entry stays.
      for (const [i, { entry }] of group.entries()) {
        const { outcome: done, writtenBy } = written[i] as Written;
        run.line({
          ...baseOf(entry),
          result: done === "left" ? "released" : outcome,
          ...(writtenBy ? { writtenBy } : {}),
        });
      }
    } catch (err) {
      for (const { entry } of group) failed(entry, err);
    }
  }
  return allRemoved;
}

function baseOf(entry: LedgerEntry) {
  return { id: entry.line, op: entry.op, key: entry.key, parent: entry.parent, diff: "delete" as const };
}
