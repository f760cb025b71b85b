/** An item the engine writes: from a resolved plan line, a ledger entry or an intent. */
import { canonicalIdentity } from "../../../shared/canonical-identity";
import { SponsonError } from "../../../shared/errors";
import type { Intent, LedgerEntry } from "../../../shared/schemas/receipt";
import type { OpSpec, Params } from "../../adapters/op-spec";
import type { Connections } from "../../connections/connections";
import type { OpRegistry } from "./op-registry";
import type { ResolvedLine } from "./resolve-plan";

export interface Item {
  line: string;
  opName: string;
  op: OpSpec;
  /** The configured connection it is written through. */
  connection: string;
  params: Params;
  key: string;
  parent: string | null;
}

export function itemOfLine(line: ResolvedLine): Item {
  return {
    line: line.id,
    opName: line.opName,
    op: line.op,
    connection: line.connection,
    params: line.params,
    key: line.key,
    parent: line.parent,
  };
}

/**
 * Destroy and rollback derive everything from stored state, never from the request; the
 * connection a record names is looked up in the service's configuration, and the run's
 * environment must still be allowed to use it.
 */
export function itemOfRecord(
  record: LedgerEntry | Intent,
  ops: OpRegistry,
  connections: Connections,
  environment: string,
): Item {
  const where = `entry ${record.key} (line ${record.line})`;
  const op = ops.get(record.op);
  if (!op)
    throw new SponsonError(
      "INTERNAL",
      `the receipt names op "${record.op}", which this service does not know`,
    );
  const name =
    record.connection ??
    (record.provider ? connectionOfLegacyRecord(record.provider, connections, where) : null);
  if (name === null) throw new SponsonError("INTERNAL", `${where} names no connection`);
  const connection = connections.use(name, environment, where);
  if (connection.type !== op.providerType) {
    throw new SponsonError(
      "INTERNAL",
      `${where}: connection "${name}" is of type ${connection.type}, the entry's op needs ${op.providerType}`,
    );
  }
  return {
    line: record.line,
    opName: record.op,
    op,
    connection: name,
    params: record.params,
    key: record.key,
    parent: record.parent,
  };
}

function connectionOfLegacyRecord(block: Record<string, unknown>, connections: Connections, where: string) {
  try {
    return connections.legacyMatch(block);
  } catch (err) {
    if (err instanceof SponsonError) throw new SponsonError(err.code, `${where}: ${err.message}`, err.detail);
    throw err;
  }
}

/** The stored form of an item written by `runId` (the common part of ledger entries and intents). */
export function recordOf(item: Item, runId: string) {
  return {
    line: item.line,
    op: item.opName,
    connection: item.connection,
    params: item.params,
    key: item.key,
    parent: item.parent,
    runId,
  };
}

/**
 * The object an item is written on, as a group's key: a run's changes with one key (same parent,
 * op kind and connection) are one group, read once and written once.
 */
export function groupKeyOf(item: Item): string {
  // Items without a parent lock are each their own group, named by their identity, not their line.
  if (item.parent === null) return `\0${item.opName}\0${item.key}`;
  return [item.parent, item.op.batch?.kind ?? "", item.connection].join("\0");
}

/**
 * What names an item everywhere — ledger entries, intents, combined changes, ownership: its op, its
 * key and the object it lives on (docs/design.md, "Ownership of shared entries"). The plan line
 * that manages it is only a label, and so is the connection it is written through: the parent
 * identity already names the provider's object (a tenant's application, a bucket), so one item
 * reached through two connections is still one item.
 */
export interface ItemRef {
  op: string;
  key: string;
  parent: string | null;
}

export function refOf(item: Item): ItemRef {
  return { op: item.opName, key: item.key, parent: item.parent };
}

/**
 * Same item regardless of which plan line manages it, and of how its object's host was spelled
 * (shared/canonical-identity.ts): receipts are read canonical, an identity an admin types may not be.
 */
export function sameItem(a: ItemRef, b: ItemRef): boolean {
  if (a.op !== b.op || a.key !== b.key) return false;
  if (a.parent === b.parent) return true;
  return (
    a.parent !== null && b.parent !== null && canonicalIdentity(a.parent) === canonicalIdentity(b.parent)
  );
}
