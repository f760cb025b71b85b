/**
 * The shares of each list checked from the plan, before any lock and any outbound request
 * (docs/design.md, "A share of each list"): asked of the receipt read before the scope lease, and
 * again of the one taken under it (`ScopeRun.refuse`), as an empty plan is. A plan whose lines
 * would grow its scope's share of a list past a quota is refused QUOTA_EXCEEDED, naming the list.
 */
import type { StoredReceipt } from "../../receipts/receipt-store";
import type { EngineDeps } from "../deps";
import type { ResolvedLine } from "../plan/resolve-plan";
import { planOverQuota, quotaExceeded, quotaOfList, type ShareHolder } from "./quota";

export function refusePlanOverQuota(
  deps: Pick<EngineDeps, "connections">,
  lines: readonly ResolvedLine[],
  { receipt }: Pick<StoredReceipt, "receipt">,
  holder: ShareHolder,
): void {
  const planned = lines.map((l) => ({
    op: l.opName,
    key: l.key,
    parent: l.parent,
    quota: quotaOfList(l.op, deps.connections.limitsOf(l.connection, l.opName)),
  }));
  const breach = planOverQuota(planned, receipt.ledger, holder);
  if (breach) throw quotaExceeded(breach);
}
