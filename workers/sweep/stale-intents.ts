/**
 * The sweep's intent recovery (docs/design.md, "Webhooks and the sweep"): every scope whose receipt
 * holds an intent older than the lease TTL is recovered through the engine's own path (under the
 * scope lease, each intent resolved under its parent lease). Upgrading only (docs/design.md,
 * "Intent recovery"): a scope lock of a version before 0.2.0 may still keep a dead run's
 * intents, found through the pending-intents index and recovered the same way. The count is of intents that are gone
 * from the receipt afterwards: a scope that was busy, or whose recovery failed, adds nothing to it
 * and is named in the detail instead.
 */
import { isSponsonError } from "../../shared/errors";
import type { Intent } from "../../shared/schemas/receipt";
import type { RepositoryRef } from "../../shared/schemas/repository";
import type { RunResult } from "../../shared/schemas/run";
import { durableIntents, openLockIntents, sameIntent } from "../receipts/durable-intents";
import type { ReceiptStore, ScopeAddress } from "../receipts/receipt-store";

export interface StaleIntentDeps {
  store: ReceiptStore;
  /** Scopes whose scope lock (of a version before 0.2.0) keeps intents no receipt holds. */
  pendingScopes: () => Promise<Array<{ repositoryId: number; environment: string; scope: string }>>;
  /** The intents one scope's lock keeps. */
  pendingIntents: (address: ScopeAddress) => Promise<Intent[]>;
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
  const idOf = (s: { repositoryId: number; environment: string; scope: string }) =>
    JSON.stringify([s.repositoryId, s.environment, s.scope]);
  const scopes = new Map<string, { repositoryId: number; environment: string; scope: string }>();
  const pending = await deps.pendingScopes();
  // Only a scope the index names can keep intents in a free lock (a held one is its holder's to
  // resolve), so only those locks are asked: one object call per such scope, not per receipt.
  const indexed = new Set(pending.map(idOf));
  for (const s of [...(await deps.store.listScopes()), ...pending]) {
    const ref = { repositoryId: s.repositoryId, environment: s.environment, scope: s.scope };
    scopes.set(idOf(ref), ref);
  }
  const durable = async (address: ScopeAddress) => {
    const ref = {
      repositoryId: address.repository.id,
      environment: address.environment,
      scope: address.scope,
    };
    // The lock first, then the receipt: a save between the two is in the receipt read after it.
    const kept = indexed.has(idOf(ref)) ? await deps.pendingIntents(address) : [];
    const { receipt } = await deps.store.read(address);
    const intents = durableIntents(receipt, kept);
    // Rows the receipt already accounts for (a holder saved, then died before its release): no
    // intent is left, but the lock keeps them, and its index entry, until a settled release.
    return { intents, settledOnly: kept.length > 0 && openLockIntents(receipt, kept).length === 0 };
  };
  for (const summary of scopes.values()) {
    const address = {
      repository: deps.repository(summary.repositoryId),
      environment: summary.environment,
      scope: summary.scope,
    };
    const name = `${address.repository.name}:${summary.environment}/${summary.scope}`;
    let stale: Intent[] = [];
    let result: RunResult;
    try {
      const found = await durable(address);
      stale = found.intents.filter((i) => i.at < olderThan);
      // A recovery that finds nothing to resolve still ends in a settled release.
      if (stale.length === 0 && !found.settledOnly) continue;
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
    const after = await durable(address).then(
      ({ intents }) => ({ intents }),
      () => null,
    );
    if (after === null) {
      failed.push(`${name} (recovered, but its receipt could not be read again)`);
      continue;
    }
    const gone = stale.filter((i) => !after.intents.some((left) => sameIntent(i, left)));
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
