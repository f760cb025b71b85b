/**
 * Step 5 of a run (docs/design.md, "Run algorithm"): intents left by a crashed run are resolved before
 * anything else, each under its recorded parent lock. A create intent's item is kept only when the run that
 * wrote it is known to have succeeded, the ledger already owns it or an adoption wrote it (the item
 * was there before it); otherwise it is removed.
 */
import type { Intent } from "../../../shared/schemas/receipt";
import { itemOfRecord, recordOf } from "../plan/item";
import type { WaitPolicy } from "../write/item-writer";
import type { RunContext } from "./run-context";

export async function recoverIntents(
  { deps, run, session, writer }: RunContext,
  only?: (intent: Intent) => boolean,
): Promise<number> {
  const intents = session.receipt.intents.filter((i) => !only || only(i));
  // Recovery always waits: giving up would leave an orphan behind.
  const waiting: WaitPolicy = { wait: true, waitTimeoutMs: deps.waitTimeoutMs };
  for (const intent of intents) {
    // Resolving an earlier intent may have resolved this one too (the same run's other intent of
    // the item, or a receipt of an older version holding it twice).
    if (!session.receipt.intents.includes(intent)) continue;
    const item = itemOfRecord(intent, deps.ops, deps.connections, run.environment);
    const succeeded = session.receipt.runs.some((r) => r.id === intent.runId && r.status === "succeeded");
    const owned = session.ledgerEntry(intent) !== undefined;
    // An adoption's intent names an entry that was there before it: never removed for it.
    if (intent.action === "create" && (succeeded || owned || intent.adopts === true)) {
      const present = await writer.adopt(item, waiting);
      session.dropIntent(intent);
      if (present && !owned) {
        session.addLedger({ ...recordOf(item, intent.runId), createdAt: intent.at });
      }
      await session.save();
      continue;
    }
    // A crashed create or an unfinished remove: make sure the item is gone, then forget the intent.
    await writer.write(item, "remove", waiting);
    // The item is gone: every intent its run left for it (a create and its rollback's remove) is.
    session.resolveIntents(intent.runId, intent);
    session.dropLedger(intent);
    await session.save();
  }
  if (intents.length > 0 && !only) run.warn(`recovered ${intents.length} intent(s) left by an earlier run`);
  return intents.length;
}
