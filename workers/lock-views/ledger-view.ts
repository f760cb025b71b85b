/**
 * A receipt's ledger with each entry's ownership read live from its parent's lock object: whether
 * the scope created it, shares it (and with how many others) or found it foreign. Read-only: no
 * lease is taken, so what it shows may be a moment old.
 */
import type { Env } from "../../shared/env";
import { parentLockKey } from "../../shared/lock-keys";
import { type ItemOwnership, ownerOf } from "../../shared/schemas/ownership";
import type { Receipt, ReceiptView } from "../../shared/schemas/receipt";
import type { RepositoryRef } from "../../shared/schemas/repository";
import { SecretRegistry } from "../../shared/secrets";
import { lockStub } from "../locks/lock-target";

/** Ownership read per parent, shared by the ledgers of one page so each lock is read once. */
export type OwnershipReads = Map<string, Promise<ItemOwnership[]>>;

function ownershipOf(env: Env, parent: string, reads: OwnershipReads): Promise<ItemOwnership[]> {
  let read = reads.get(parent);
  if (!read) {
    // Identities in a stored ledger were checked for secrets when they were written.
    read = parentLockKey(parent, new SecretRegistry()).then(
      async (key) => (await lockStub(env, key).ownership({ key })).items,
    );
    reads.set(parent, read);
  }
  return read;
}

export async function ledgerView(
  env: Env,
  repository: RepositoryRef,
  receipt: Receipt,
  reads: OwnershipReads = new Map(),
): Promise<ReceiptView> {
  const me = ownerOf({ repository, environment: receipt.environment, scope: receipt.scope });
  const parents = [...new Set(receipt.ledger.map((e) => e.parent).filter((p): p is string => p !== null))];
  const byParent = new Map<string, ItemOwnership[]>();
  await Promise.all(
    parents.map(async (parent) => byParent.set(parent, await ownershipOf(env, parent, reads))),
  );
  const ledger = receipt.ledger.map((entry) => {
    const own = entry.parent
      ? byParent.get(entry.parent)?.find((i) => i.op === entry.op && i.key === entry.key)
      : undefined;
    return {
      ...entry,
      holding: entry.holding ?? ("created" as const),
      otherOwners: own ? own.owners.filter((o) => o !== me).length : 0,
      foreign: own?.foreign ?? entry.holding === "foreign",
    };
  });
  return { ...receipt, ledger };
}
