/**
 * Preview (docs/design.md, "Run algorithm"): inspect and report the diff; no lock, no write, no receipt
 * change.
 */
import { rethrowCrash } from "../deps";
import { sameItem } from "../plan/item";
import { objectKeyOf as readKeyOf } from "../plan/object-limit";
import type { ResolvedLine } from "../plan/resolve-plan";
import type { ProviderContexts } from "../provider-context";
import type { ReceiptSession } from "./receipt-session";
import type { Run } from "./run";

/**
 * Fair use (docs/security.md, "Fair use"): a preview reads its distinct provider objects this many
 * at a time, so a long plan neither reads one by one nor bursts a tenant's management-API quota;
 * how many it may read at all is ../plan/object-limit.ts's.
 */
export const PREVIEW_READ_CONCURRENCY = 8;

type Settled = { ok: true; present: boolean } | { ok: false; error: unknown };

/** Each line's presence, reading each distinct object once, PREVIEW_READ_CONCURRENCY at a time. */
async function presenceOf(contexts: ProviderContexts, lines: readonly ResolvedLine[]): Promise<Settled[]> {
  const reads = new Map<string, { line: ResolvedLine; state?: Settled | { ok: true; value: unknown } }>();
  lines.forEach((line, i) => {
    const key = readKeyOf(line, i);
    if (!reads.has(key)) reads.set(key, { line });
  });
  const queue = [...reads.values()];
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const { line } = next;
      const ctx = contexts.get(line.connection);
      try {
        next.state =
          line.op.batch === undefined || line.parent === null
            ? { ok: true, present: (await line.op.inspect(ctx, line.params)).present }
            : { ok: true, value: await line.op.batch.read(ctx, line.params) };
      } catch (error) {
        next.state = { ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PREVIEW_READ_CONCURRENCY, queue.length) }, worker));
  return lines.map((line, i) => {
    const state = reads.get(readKeyOf(line, i))?.state;
    if (state === undefined || !state.ok) return { ok: false, error: state?.error };
    if ("present" in state) return state;
    const batch = line.op.batch;
    if (batch === undefined) return { ok: false, error: new Error("batch read without a batch op") };
    try {
      return { ok: true, present: batch.keys(state.value, line.params).includes(line.key) };
    } catch (error) {
      return { ok: false, error };
    }
  });
}

export async function previewLines(
  contexts: ProviderContexts,
  run: Run,
  session: ReceiptSession,
  lines: readonly ResolvedLine[],
): Promise<void> {
  const presence = await presenceOf(contexts, lines);
  lines.forEach((line, i) => {
    const base = { id: line.id, op: line.opName, key: line.key, parent: line.parent };
    const seen = presence[i] as Settled;
    if (!seen.ok) {
      rethrowCrash(seen.error);
      run.line({ ...base, diff: "unchanged", result: "failed", error: run.errorOf(seen.error, [line.id]) });
      return;
    }
    const owned = session.receipt.ledger.some((e) => sameItem(e, { ...line, op: line.opName }));
    if (!seen.present && owned)
      run.missing({ line: line.id, key: line.key, kind: "missing", parent: line.parent });
    run.line({
      ...base,
      diff: seen.present ? "unchanged" : "create",
      result: seen.present ? "unchanged" : "would-create",
    });
  });
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
