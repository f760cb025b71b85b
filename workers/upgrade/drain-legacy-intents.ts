/**
 * The upgrade's drain of intents scope locks of 0.1.x kept (docs/upgrading.md, "Intents kept by
 * scope locks of 0.1.x"; deleted in 0.4.0). For each lock the pending-intents index names, under
 * that scope's lease (taken without waiting: a busy scope is left for the next pass):
 *
 * 1. read what the lock keeps (`drainLegacyIntents`, fenced by the lease);
 * 2. merge it into the receipt, less what the receipt's `intentsThrough` already accounts for, and
 *    save conditionally on the etag read (merge-legacy-intents.ts);
 * 3. tell the lock to drop the rows read in 1, which also deletes its index entry.
 *
 * A crash anywhere loses nothing: before 3 the lock keeps every row, and the next drain merges only
 * what the receipt does not hold yet. No run of the scope interleaves: the drain holds the lease,
 * and until 3 every grant says the lock keeps such intents, which a run refuses
 * (workers/engine/run/held-scope.ts). The intents then sit in the receipt like any crashed run's,
 * for the scope's next run or the sweep's recovery.
 */
import { isSponsonError, type Result, unwrap } from "../../shared/errors";
import type { Intent } from "../../shared/schemas/receipt";
import { repositoryRefById } from "../../shared/schemas/repository";
import { ScopeLease } from "../locks/scope-lock";
import { type LegacyIntentsScope, listLegacyIntentScopes } from "./legacy-intents-index";
import { legacyReceiptKey } from "./legacy-receipt-keys";
import { mergeLegacyIntents } from "./merge-legacy-intents";
import type { UpgradeDeps } from "./upgrade-deps";
import { failureOf, type IntentsReport, type UpgradeFailure, upgradeHolder } from "./upgrade-report";
import { turnOf } from "./upgrade-turn";

export type DrainOutcome =
  /** `merged` rows joined the receipt's intents; `dropped` rows the lock no longer keeps. */
  | { kind: "drained"; merged: number; dropped: number }
  | { kind: "busy" }
  /** Not drained now, for a reason an operator may have to act on (a receipt not moved yet). */
  | { kind: "waiting"; reason: string }
  | { kind: "failed"; failure: UpgradeFailure };

/**
 * The locks the index names, one after the other: this pass's turn of them (after `after`, at most
 * `budget`: ./upgrade-turn.ts), and the part's next mark.
 */
export async function drainLegacyIntents(
  deps: UpgradeDeps,
  after: string | null,
  budget: number,
): Promise<{ report: IntentsReport; mark: string | null }> {
  const report: IntentsReport = { drained: [], busy: [], waiting: [], failed: [], left: 0 };
  const scopes = new Map((await listLegacyIntentScopes(deps.bucket)).map((s) => [s.key, s]));
  const turn = turnOf([...scopes.keys()], after, budget);
  report.left = turn.left;
  for (const lock of turn.take) {
    const outcome = await drainScope(deps, scopes.get(lock) as LegacyIntentsScope);
    if (outcome.kind === "drained")
      report.drained.push({ lock, merged: outcome.merged, dropped: outcome.dropped });
    else if (outcome.kind === "busy") report.busy.push(lock);
    else if (outcome.kind === "waiting") report.waiting.push({ lock, reason: outcome.reason });
    else report.failed.push({ lock, ...outcome.failure });
  }
  return { report, mark: turn.mark };
}

export async function drainScope(deps: UpgradeDeps, scope: LegacyIntentsScope): Promise<DrainOutcome> {
  const holder = upgradeHolder(deps.now());
  let lease: ScopeLease;
  try {
    lease = await ScopeLease.acquire(deps.lock(scope.key), holder, deps.lease);
  } catch (err) {
    if (isSponsonError(err) && err.code === "LOCK_HELD") return { kind: "busy" };
    return { kind: "failed", failure: failureOf(err) };
  }
  let saved: string | null = null;
  try {
    const fenced = { holder, token: lease.token };
    const kept = unwrap<Intent[]>(await lease.target.drainLegacyIntents(fenced));
    let merged = 0;
    if (kept.length > 0) {
      const address = {
        repository: repositoryRefById(scope.repositoryId, deps.repositories),
        environment: scope.environment,
        scope: scope.scope,
      };
      const stored = await deps.store.read(address);
      // A receipt still at its key from before repositories would be hidden by the one this creates.
      if (
        stored.etag === null &&
        (await deps.bucket.head(legacyReceiptKey(scope.environment, scope.scope)))
      ) {
        return { kind: "waiting", reason: "the scope's receipt is still at its key from before 0.2.0" };
      }
      const merge = mergeLegacyIntents(stored.receipt, kept);
      if (merge.receipt !== stored.receipt) {
        lease.assertHeld();
        saved = await deps.store.write(
          { ...merge.receipt, revision: merge.receipt.revision + 1 },
          stored.etag,
        );
      }
      merged = merge.merged;
    }
    const drop = kept.map(({ runId, action, op, key, parent }) => ({ runId, action, op, key, parent }));
    const left: Result<Intent[]> = await lease.target.drainLegacyIntents({ ...fenced, drop });
    if (unwrap(left).length > 0) {
      return {
        kind: "failed",
        failure: { code: "INTERNAL", error: "the lock kept rows the drain did not read" },
      };
    }
    return { kind: "drained", merged, dropped: kept.length };
  } catch (err) {
    return { kind: "failed", failure: failureOf(err) };
  } finally {
    await lease.release(saved);
  }
}
