/**
 * A receipt as read, its ledger's and intents' parents canonical (shared/canonical-identity.ts): an
 * entry an earlier version recorded under another spelling of its object's host is the same item
 * as a line naming that object now, and is locked, compared and counted as an owner under the one
 * identity (docs/upgrading.md, "One lock per provider object"). The next save stores the canonical
 * spelling; until then the receipt's parent tags still name the old one, which
 * `mayName` (./parent-tags.ts) also matches.
 */
import { canonicalIdentity } from "../../shared/canonical-identity";
import type { Receipt } from "../../shared/schemas/receipt";

function canonicalParent<T extends { parent: string | null }>(record: T): T {
  if (record.parent === null) return record;
  const parent = canonicalIdentity(record.parent);
  return parent === record.parent ? record : { ...record, parent };
}

export function withCanonicalParents(receipt: Receipt): Receipt {
  return {
    ...receipt,
    ledger: receipt.ledger.map(canonicalParent),
    intents: receipt.intents.map(canonicalParent),
  };
}
