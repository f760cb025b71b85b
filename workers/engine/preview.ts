import { rethrowCrash } from "./deps";
/**
 * Preview (docs/design.md, "Run algorithm"): inspect and report the diff; no lock, no write, no receipt
 * change.
 */
import { sameItem } from "./item";
import type { ProviderContexts } from "./provider-context";
import type { ReceiptSession } from "./receipt-session";
import type { ResolvedLine } from "./resolve-plan";
import type { Run } from "./run";

export async function previewLines(
  contexts: ProviderContexts,
  run: Run,
  session: ReceiptSession,
  lines: readonly ResolvedLine[],
): Promise<void> {
  for (const line of lines) {
    const base = { id: line.id, op: line.opName, key: line.key, parent: line.parent };
    try {
      const seen = await line.op.inspect(contexts.get(line.connection), line.params);
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
