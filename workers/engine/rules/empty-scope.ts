/**
 * The two answers about a scope with nothing in it, or a plan with nothing in it (docs/design.md,
 * "Empty plans", "A scope with no receipt"): decisions on the receipt, no I/O.
 */
import { SponsonError } from "../../../shared/errors";
import type { Receipt } from "../../../shared/schemas/receipt";
import type { StoredReceipt } from "../../receipts/receipt-store";

/** What the no-receipt answer reads of a run under its scope lease (run/run.ts `Run`). */
export interface RunSoFar {
  readonly environment: string;
  readonly scope: string;
  /** The line results the run has given so far (recovery's among them). */
  readonly lines: readonly unknown[];
}

/** What it reads of the run's receipt session (run/receipt-session.ts `ReceiptSession`). */
export interface ReceiptSoFar {
  readonly exists: boolean;
  readonly receipt: Readonly<Pick<Receipt, "ledger" | "intents">>;
}

/**
 * A destroy or rollback of a scope nothing was ever applied to (docs/design.md, "A scope with no
 * receipt"): no receipt, no intent, nothing recovered. The run says so (the warning answered here;
 * null: the scope has something) instead of doing nothing silently, so a mistyped scope is
 * visible; a queued destroy of such a scope still succeeds.
 */
export function noReceiptWarning(run: RunSoFar, session: ReceiptSoFar): string | null {
  const { ledger, intents } = session.receipt;
  if (session.exists || ledger.length > 0 || intents.length > 0 || run.lines.length > 0) return null;
  return `scope ${run.environment}/${run.scope} has no receipt: nothing was applied to it, or it was destroyed already (is the scope name right?)`;
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
