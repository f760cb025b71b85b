/** An item the engine writes: from a resolved plan line, a ledger entry or an intent. */
import { SponsonError } from "../../shared/errors";
import type { Intent, LedgerEntry } from "../../shared/schemas/receipt";
import type { OpRegistry } from "./op-registry";
import type { OpSpec, Params } from "./op-spec";
import type { ResolvedLine } from "./resolve-plan";

export interface Item {
  line: string;
  opName: string;
  op: OpSpec;
  provider: LedgerEntry["provider"];
  params: Params;
  key: string;
  parent: string | null;
}

export function itemOfLine(line: ResolvedLine): Item {
  return {
    line: line.id,
    opName: line.opName,
    op: line.op,
    provider: line.provider,
    params: line.params,
    key: line.key,
    parent: line.parent,
  };
}

/** Destroy and rollback derive everything from stored state, never from the request (DESIGN §7). */
export function itemOfRecord(record: LedgerEntry | Intent, ops: OpRegistry): Item {
  const op = ops.get(record.op);
  if (!op)
    throw new SponsonError(
      "INTERNAL",
      `the receipt names op "${record.op}", which this service does not know`,
    );
  return {
    line: record.line,
    opName: record.op,
    op,
    provider: record.provider,
    params: record.params,
    key: record.key,
    parent: record.parent,
  };
}

/** The stored form of an item written by `runId` (the common part of ledger entries and intents). */
export function recordOf(item: Item, runId: string) {
  return {
    line: item.line,
    op: item.opName,
    provider: item.provider,
    params: item.params,
    key: item.key,
    parent: item.parent,
    runId,
  };
}

/** Same item regardless of which plan line manages it. */
export function sameItem(a: { op: string; key: string; parent: string | null }, b: typeof a): boolean {
  return a.op === b.op && a.key === b.key && a.parent === b.parent;
}

export function providerContextName(item: Item): string {
  // Contexts are cached per provider block; the block's own content names it.
  return JSON.stringify(item.provider);
}
