/**
 * Step 5 of a run (docs/design.md, "Run algorithm"): intents left by a crashed run are resolved before
 * anything else, each under its recorded parent lock. A create intent's item is kept only when the run that
 * wrote it is known to have succeeded, the ledger already owns it or an adoption wrote it (the item
 * was there before it); one the provider refused (`refused`) is only left; otherwise it is removed.
 */
import type { Intent } from "../../../shared/schemas/receipt";
import { itemOfRecord, recordOf } from "../plan/item";
import { rethrowCrash } from "../simulated-crash";
import type { RunContext } from "./run-context";
import { alwaysWaiting } from "./scope-request";

export async function recoverIntents(ctx: RunContext, only?: (intent: Intent) => boolean): Promise<number> {
  const { run, session } = ctx;
  const intents = session.receipt.intents.filter((i) => !only || only(i));
  for (const intent of intents) {
    // Resolving an earlier intent may have resolved this one too (the same run's other intent of
    // the item, or a receipt of an older version holding it twice).
    if (!session.receipt.intents.includes(intent)) continue;
    try {
      await resolveIntent(ctx, intent);
    } catch (err) {
      rethrowCrash(err);
      // Never dropped while its outcome is unknown ("Intent recovery"): the next run or the sweep
      // resolves it. Said once, however often a rollback tries.
      const said = `the ${intent.action} intent of ${intent.key} (run ${intent.runId}) stays in the receipt for the scope's next run or the sweep: ${run.errorOf(err).message}`;
      if (!run.warnings.includes(said)) run.warn(said);
      throw err;
    }
  }
  if (intents.length > 0 && !only) run.warn(`recovered ${intents.length} intent(s) left by an earlier run`);
  return intents.length;
}

/** One intent resolved under its parent lease, waiting until the run's deadline (recovery always waits). */
async function resolveIntent(
  { deps, run, session, writer, waiting }: RunContext,
  intent: Intent,
): Promise<void> {
  const item = itemOfRecord(intent, deps.ops, deps.connections, run.environment);
  const succeeded = session.receipt.runs.some((r) => r.id === intent.runId && r.status === "succeeded");
  const owned = session.ledgerEntry(intent) !== undefined;
  // A refused create whose claim could not be withdrawn (or the leave resolving it): another
  // writer's entry the scope is named owner of. It only leaves, whatever the run's outcome — also
  // when the ledger holds the item (a claim-back create: the scope's own entry went, the one there
  // now is not its); the leave drops that ledger entry.
  if (intent.refused === true) {
    await writer.leave(item, alwaysWaiting(waiting));
    session.resolveIntents(intent.runId, intent);
    await session.save();
    return;
  }
  // An adoption's intent names an entry that was there before it: never removed for it.
  if (intent.action === "create" && (succeeded || owned || intent.adopts === true)) {
    const present = await writer.adopt(item, alwaysWaiting(waiting));
    session.dropIntent(intent);
    if (present && !owned) {
      session.addLedger({ ...recordOf(item, intent.runId), createdAt: intent.at });
    }
    await session.save();
    return;
  }
  // A crashed create or an unfinished remove: make sure the item is gone, then forget the intent.
  await writer.write(item, "remove", alwaysWaiting(waiting));
  // The item is gone: every intent its run left for it (a create and its rollback's remove) is.
  session.resolveIntents(intent.runId, intent);
  session.dropLedger(intent);
  await session.save();
}
