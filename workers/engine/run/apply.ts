/**
 * Apply, steps 6 to 8 of docs/design.md, "Run algorithm", once the scope lease is held and intents are
 * recovered. Unchanged lines take no lock; the lines that would write are grouped by the object they
 * live on, and each group takes its parent lease once, for one read and one write.
 */

import type { Diff, LineOutcome } from "../../../shared/schemas/run";
import { type Item, itemOfLine, refOf, sameItem } from "../plan/item";
import type { ResolvedLine } from "../plan/resolve-plan";
import { rethrowCrash } from "../simulated-crash";
import { type Change, groupChanges, type WriteOutcome, type Written } from "../write/item-writer";
import { unbackedByLock } from "./lock-backed";
import type { ReceiptSession } from "./receipt-session";
import { recoverIntents } from "./recover";
import { removeEntries } from "./remove-entries";
import type { RunContext } from "./run-context";

const APPLY_RESULT = {
  written: { diff: "create", result: "created" },
  already: { diff: "unchanged", result: "unchanged" },
  shared: { diff: "unchanged", result: "shared" },
  foreign: { diff: "unchanged", result: "foreign" },
  left: { diff: "unchanged", result: "unchanged" },
} as const satisfies Record<WriteOutcome, { diff: Diff; result: LineOutcome }>;

export async function applyLines(ctx: RunContext, lines: readonly ResolvedLine[]): Promise<void> {
  const { run, session, writer, waiting } = ctx;
  const baseOf = (l: ResolvedLine) => ({ id: l.id, op: l.opName, key: l.key, parent: l.parent });
  const items = lines.map((line) => {
    const item = itemOfLine(line);
    claimRenamedEntry(session, item);
    return item;
  });
  // Owned means this very item (op, key and object) is in the ledger, whichever line put it there.
  const owned = items.map((item) => session.ledgerEntry(refOf(item)) !== undefined);
  // One read per object before any lease, only of items the ledger holds: one that is there takes
  // no lock (the steady state), one that is gone is drift. An item the ledger does not hold goes to
  // the writer whatever a read would say (it reads again under the lease, and joins or creates), so
  // a group of such items goes straight to its parent lease: one read and one write, the floor.
  // A scope another run evicted from is also asked of the lock: ledger and presence are not enough
  // where the lock may no longer name it an owner (docs/design.md, "Evicting stale scopes").
  const held = items.filter((_, i) => owned[i]);
  const [peekedAll, unbacked] = await Promise.all([writer.peek(held), unbackedByLock(ctx, held)]);
  const peeked = peekedAll.values();
  const unread: PromiseSettledResult<boolean> = { status: "fulfilled", value: false };
  const present = owned.map((o) => (o ? peeked.next().value : unread));
  const changes: Array<Change & { line: ResolvedLine }> = [];
  for (const [i, line] of lines.entries()) {
    const item = items[i] as Item;
    const seen = present[i] as PromiseSettledResult<boolean>;
    if (seen.status === "rejected") {
      rethrowCrash(seen.reason);
      run.line({
        ...baseOf(line),
        diff: "create",
        result: "failed",
        error: run.errorOf(seen.reason, [line.id]),
      });
      break;
    }
    const reclaim = seen.value && owned[i] && unbacked.has(item);
    if (seen.value && owned[i] && !reclaim) {
      run.line({ ...baseOf(line), diff: "unchanged", result: "unchanged" });
      continue;
    }
    if (!seen.value && owned[i])
      run.missing({ line: line.id, key: line.key, kind: "missing", parent: line.parent });
    changes.push({ item, action: "create", line, ...(reclaim ? { inLedger: true as const } : {}) });
  }
  // Distinct objects one at a time, each in one critical section; none once a line failed.
  writer.expect(run.failed ? [] : changes);
  for (const group of run.failed ? [] : groupChanges(changes)) {
    try {
      const outcomes = await writer.writeGroup(group, waiting);
      for (const [i, { item, line }] of group.entries()) {
        const { outcome, writtenBy } = outcomes[i] as Written;
        if (outcome !== "already") run.created.push(refOf(item));
        run.line({ ...baseOf(line), ...APPLY_RESULT[outcome], ...(writtenBy ? { writtenBy } : {}) });
      }
    } catch (err) {
      rethrowCrash(err);
      const error = run.errorOf(
        err,
        group.map(({ line }) => line.id),
      );
      for (const { line } of group) run.line({ ...baseOf(line), diff: "create", result: "failed", error });
      break;
    }
  }

  writer.expect([]);
  // Groups finish out of plan order; the result lists lines as the plan does.
  run.orderLines(lines.map((l) => l.id));

  if (!run.failed) {
    // Step 5: what the ledger owns that the plan no longer wants.
    const stale = session.receipt.ledger.filter(
      (e) => !lines.some((l) => sameItem(e, { ...l, op: l.opName })),
    );
    await removeEntries(ctx, stale, "removed");
  }

  if (run.failed) await rollbackRun(ctx);
}

/** Step 6: a failed run removes what it created, and says so on each line. */
export async function rollbackRun(ctx: RunContext): Promise<void> {
  const { run, session } = ctx;
  const created = session.receipt.ledger.filter(
    (e) => e.runId === run.id && run.created.some((c) => sameItem(c, e)),
  );
  await removeEntries(ctx, created, "rolled-back");
  // A write that failed mid-way leaves its intent: whether it reached the provider is unknown, so
  // it is resolved now, the same way recovery would resolve a crashed run's.
  await recoverIntents(ctx, (intent) => intent.runId === run.id);
}

/**
 * A line that now manages an item the scope holds under another line (a rename) or through another
 * connection to the same object keeps owning it: the entry takes the line's labels, nothing is
 * written. A line whose op, object or URL changed names another item: that one is created (or
 * joined) and the old one is removed as no longer wanted (step 8).
 */
function claimRenamedEntry(session: ReceiptSession, item: Item): void {
  session.relabel(refOf(item), { line: item.line, connection: item.connection, params: item.params });
}
