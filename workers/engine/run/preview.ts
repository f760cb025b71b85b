import { rethrowCrash } from "../deps";
import { itemOfLine, sameItem } from "../plan/item";
import type { ResolvedLine } from "../plan/resolve-plan";
import type { ProviderContexts } from "../provider-context";
/**
 * Preview (docs/design.md, "Run algorithm"): inspect and report the diff; no lock, no write, no receipt
 * change.
 */
import { groupKeyOf } from "../rules/group-decisions";
import type { ReceiptSession } from "./receipt-session";
import type { Run } from "./run";

/**
 * Whether a line's item is there. Lines on one object (same parent, op kind and connection) read
 * it once, through the many-items form apply writes with, so a preview of 500 lines on one object
 * is one provider read, not 500 (docs/security.md, "Fair use"); other lines inspect their item.
 */
function presenceReader(contexts: ProviderContexts) {
  const states = new Map<string, Promise<unknown>>();
  return async (line: ResolvedLine): Promise<boolean> => {
    const ctx = contexts.get(line.connection);
    const batch = line.op.batch;
    if (batch === undefined || line.parent === null) return (await line.op.inspect(ctx, line.params)).present;
    const key = groupKeyOf(itemOfLine(line));
    let state = states.get(key);
    if (state === undefined) {
      state = batch.read(ctx, line.params);
      states.set(key, state);
    }
    return batch.keys(await state, line.params).includes(line.key);
  };
}

export async function previewLines(
  contexts: ProviderContexts,
  run: Run,
  session: ReceiptSession,
  lines: readonly ResolvedLine[],
): Promise<void> {
  const present = presenceReader(contexts);
  for (const line of lines) {
    const base = { id: line.id, op: line.opName, key: line.key, parent: line.parent };
    try {
      const seen = { present: await present(line) };
      const owned = session.receipt.ledger.some((e) => sameItem(e, { ...line, op: line.opName }));
      if (!seen.present && owned)
        run.missing({ line: line.id, key: line.key, kind: "missing", parent: line.parent });
      run.line({
        ...base,
        diff: seen.present ? "unchanged" : "create",
        result: seen.present ? "unchanged" : "would-create",
      });
    } catch (err) {
      rethrowCrash(err);
      run.line({ ...base, diff: "unchanged", result: "failed", error: run.errorOf(err, [line.id]) });
    }
  }
  for (const entry of session.receipt.ledger) {
    if (lines.some((l) => sameItem(entry, { ...l, op: l.opName }))) continue;
    run.line({
      id: entry.line,
      op: entry.op,
      key: entry.key,
      parent: entry.parent,
      diff: "delete",
      result: "would-remove",
    });
  }
}
