/**
 * The sweep's intent recovery (docs/design.md, "Webhooks and the sweep"): every scope whose receipt
 * holds an intent older than the lease TTL is recovered through the engine's own path (under the
 * scope lease, each intent resolved under its parent lease). The receipt is their one home (what
 * scope locks of 0.1.x kept, the upgrade pass before this one drains into it). The count is of
 * intents that are gone from the receipt afterwards: a scope that was busy, or whose recovery
 * failed, adds nothing to it and is named in the detail instead.
 */
import { isSponsonError } from "../../shared/errors";
import type { Intent } from "../../shared/schemas/receipt";
import type { RepositoryRef } from "../../shared/schemas/repository";
import type { RunResult } from "../../shared/schemas/run";
import { sameItem } from "../engine/plan/item";
import type { ReceiptStore, ScopeAddress } from "../receipts/receipt-store";

export interface StaleIntentDeps {
  store: ReceiptStore;
  /** The repository a receipt's id names (the configured one, or a placeholder). */
  repository: (id: number) => RepositoryRef;
  /** The engine's recover run for one scope; throws LOCK_HELD when a run holds the scope. */
  recover: (address: ScopeAddress) => Promise<RunResult>;
  /** Where an unexpected failure is logged: redacting every secret (an error's text may hold one). */
  logError: (message: string) => void;
}

export async function resolveStaleIntents(
  deps: StaleIntentDeps,
  { olderThan }: { olderThan: number },
): Promise<{ resolved: number; detail?: string }> {
  let resolved = 0;
  const busy: string[] = [];
  const failed: string[] = [];
  const scopes = await deps.store.listScopes();
  const durable = async (address: ScopeAddress) => (await deps.store.read(address)).receipt.intents;
  for (const summary of scopes) {
    const address = {
      repository: deps.repository(summary.repositoryId),
      environment: summary.environment,
      scope: summary.scope,
    };
    const name = `${address.repository.name}:${summary.environment}/${summary.scope}`;
    let stale: Intent[] = [];
    let result: RunResult;
    try {
      stale = (await durable(address)).filter((i) => i.at < olderThan);
      if (stale.length === 0) continue;
      result = await deps.recover(address);
    } catch (err) {
      // A run holds the scope now; it resolves the intents itself before it writes.
      if (isSponsonError(err) && err.code === "LOCK_HELD") {
        busy.push(name);
        continue;
      }
      // Refused before it started (e.g. a token exchange failed), or failed in a way nobody
      // expected (logged with its stack, never put in the report): this scope's intents stay for
      // the next sweep, and the other scopes are still recovered.
      if (!isSponsonError(err)) {
        const detail = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
        deps.logError(`sweep: recovering ${name} failed: ${detail}`);
      }
      const what = isSponsonError(err) ? err.code : "internal error";
      failed.push(`${name} (${stale.length > 0 ? `${stale.length} left` : "receipt unreadable"}: ${what})`);
      continue;
    }
    // Only what recovery actually took out of the receipt counts as resolved.
    const after = await durable(address).catch(() => null);
    if (after === null) {
      failed.push(`${name} (recovered, but its receipt could not be read again)`);
      continue;
    }
    const gone = stale.filter((i) => !after.some((left) => sameIntent(i, left)));
    resolved += gone.length;
    if (gone.length < stale.length || result.run.status === "failed") {
      failed.push(
        `${name} (${stale.length - gone.length} left${result.run.error ? `: ${result.run.error.code}` : ""})`,
      );
    }
  }
  const detail = [
    busy.length > 0 ? `busy: ${busy.join(", ")}` : "",
    failed.length > 0 ? `failed: ${failed.join(", ")}` : "",
  ]
    .filter(Boolean)
    .join("; ");
  return detail ? { resolved, detail } : { resolved };
}

/** One run's intent of one item and action (docs/design.md, "Item identity"). */
function sameIntent(a: Intent, b: Intent): boolean {
  return a.runId === b.runId && a.action === b.action && sameItem(a, b);
}
