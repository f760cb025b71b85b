/**
 * Providers that forget a write (docs/design.md, "Providers that forget a write"): a successful
 * write may be missing from the next read (Graph is eventually consistent). The parent lock object
 * remembers each item's latest write for the op's window; the writer merges those writes over what
 * it reads under the lease, with each op's own edit, so a write the read does not show yet is
 * neither dropped by the next holder nor resurrected after a removal. Pure: no I/O, `now` passed in.
 */
import type { RecentWrite } from "../../../shared/schemas/recent-writes";
import type { BatchForm, OpSpec } from "../../adapters/op-spec";

/** The state with every remembered write of the same kind of object re-applied, oldest first. */
export function mergeRecentWrites(
  batch: BatchForm,
  state: unknown,
  writes: readonly RecentWrite[],
  opNamed: (name: string) => OpSpec | undefined,
  now: number,
): unknown {
  let merged = state;
  for (const w of [...writes].sort((a, b) => a.at - b.at)) {
    if (w.until <= now) continue;
    const op = opNamed(w.op);
    // Another kind of op on this lock (none today) edits another object: not ours to merge.
    if (!op?.batch || op.batch.kind !== batch.kind) continue;
    const params = op.params.safeParse(w.params);
    if (!params.success) continue;
    merged = batch.edit(merged, params.data, w.action === "add" ? "create" : "remove");
  }
  return merged;
}

export interface WrittenChange {
  opName: string;
  key: string;
  params: Record<string, string>;
  action: "create" | "remove";
}

/** What the lock object keeps of one write: each item written, its state and the window. */
export function recentWritesOf(
  changes: readonly WrittenChange[],
  now: number,
  windowMs: number,
): RecentWrite[] {
  return changes.map((c) => ({
    op: c.opName,
    key: c.key,
    params: c.params,
    action: c.action === "create" ? "add" : "remove",
    at: now,
    until: now + windowMs,
  }));
}
