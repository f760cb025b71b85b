/**
 * Preview (docs/design.md, "Run algorithm"): inspect and report the diff; no lock, no write, no receipt
 * change.
 */
import { entryHiddenFrom } from "../../../shared/lock-visibility";
import type { ItemOwnership } from "../../../shared/schemas/ownership";
import { sameItem } from "../plan/item";
import { objectKeyOf as readKeyOf } from "../plan/object-limit";
import type { ResolvedLine } from "../plan/resolve-plan";
import type { ProviderContexts } from "../provider-context";
import { rethrowCrash } from "../simulated-crash";
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

/** The entries on one parent's object with their owners, read-only and without a lease. */
export type OwnershipOf = (parent: string) => Promise<ItemOwnership[]>;

/**
 * The ownership of every parent a line names that the scope's ledger does not hold, read whether
 * or not the provider has the entry: what a failed read answers says nothing of presence.
 */
function ownershipOf(
  lines: readonly ResolvedLine[],
  owned: (line: ResolvedLine) => boolean,
  read: OwnershipOf | undefined,
): Map<string, Promise<ItemOwnership[]>> {
  const reads = new Map<string, Promise<ItemOwnership[]>>();
  if (read === undefined) return reads;
  for (const line of lines)
    if (line.parent !== null && !owned(line) && !reads.has(line.parent)) {
      const parent = line.parent;
      // Settled below, line by line; a rejection is never left unhandled meanwhile.
      const pending = read(parent);
      pending.catch(() => {});
      reads.set(parent, pending);
    }
  return reads;
}

/**
 * Each line's diff. A present entry that only another repository's scopes own answers as an
 * absent one (`would-create`: apply would create it, or join it): a preview never tells one
 * repository what another holds (docs/security.md, "What a repository sees of another").
 */
export async function previewLines(
  contexts: ProviderContexts,
  run: Run,
  session: ReceiptSession,
  lines: readonly ResolvedLine[],
  readOwnership?: OwnershipOf,
): Promise<void> {
  const owned = (line: ResolvedLine) =>
    session.receipt.ledger.some((e) => sameItem(e, { ...line, op: line.opName }));
  const owners = ownershipOf(lines, owned, readOwnership);
  const presence = await presenceOf(contexts, lines);
  for (const [i, line] of lines.entries()) {
    const base = { id: line.id, op: line.opName, key: line.key, parent: line.parent };
    const seen = presence[i] as Settled;
    const ownership = await settle(line.parent === null ? undefined : owners.get(line.parent));
    const failure = !seen.ok ? seen : !ownership.ok ? ownership : null;
    if (failure !== null) {
      rethrowCrash(failure.error);
      run.line({
        ...base,
        diff: "unchanged",
        result: "failed",
        error: run.errorOf(failure.error, [line.id]),
      });
      continue;
    }
    const mine = owned(line);
    if (seen.ok && !seen.present && mine)
      run.missing({ line: line.id, key: line.key, kind: "missing", parent: line.parent });
    const item = ownership.ok
      ? ownership.items?.find((o) => o.op === line.opName && o.key === line.key)
      : undefined;
    const present = seen.ok && seen.present && (mine || !entryHiddenFrom(item, run.repository.id));
    run.line({
      ...base,
      diff: present ? "unchanged" : "create",
      result: present ? "unchanged" : "would-create",
    });
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

/** A parent's ownership read, settled: absent (no parent, or none read) answers no items. */
async function settle(
  read: Promise<ItemOwnership[]> | undefined,
): Promise<{ ok: true; items?: ItemOwnership[] } | { ok: false; error: unknown }> {
  if (read === undefined) return { ok: true };
  try {
    return { ok: true, items: await read };
  } catch (error) {
    return { ok: false, error };
  }
}
