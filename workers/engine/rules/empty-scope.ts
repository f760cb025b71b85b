/**
 * The two answers about a scope with nothing in it, or a plan with nothing in it (docs/design.md,
 * "Empty plans", "A scope with no receipt"): decisions on the receipt, no I/O.
 */
import { SponsonError } from "../../../shared/errors";
import type { StoredReceipt } from "../../receipts/receipt-store";
import type { ReceiptSession } from "../run/receipt-session";
import type { Run } from "../run/run";

/**
 * A destroy or rollback of a scope nothing was ever applied to (docs/design.md, "A scope with no
 * receipt"): no receipt, no intent, nothing recovered. The run says so instead of doing nothing
 * silently, so a mistyped scope is visible; a queued destroy of such a scope still succeeds.
 */
export function saidNoReceipt(run: Run, session: ReceiptSession): boolean {
  const { ledger, intents } = session.receipt;
  if (session.exists || ledger.length > 0 || intents.length > 0 || run.lines.length > 0) return false;
  run.noReceipt(
    `scope ${run.environment}/${run.scope} has no receipt: nothing was applied to it, or it was destroyed already (is the scope name right?)`,
  );
  return true;
}

/**
 * An apply with no lines on a scope that owns entries would remove them all (docs/design.md, "Empty
 * plans"): refused unless the request says `allowEmpty`; destroy is the way to remove everything.
 */
export function refuseEmptyPlan({ receipt }: StoredReceipt): void {
  const owned = receipt.ledger.length;
  if (owned === 0) return;
  throw new SponsonError(
    "EMPTY_PLAN",
    `the plan has no lines and scope ${receipt.environment}/${receipt.scope} owns ${owned} ${owned === 1 ? "entry" : "entries"}: ` +
      'applying it would remove them all. Send "allowEmpty": true (CLI --allow-empty) if that is meant, ' +
      "or destroy the scope to remove everything",
    { environment: receipt.environment, scope: receipt.scope, entries: owned },
  );
}
