/**
 * The scope lease as a run takes and holds it (docs/design.md, "Run algorithm", steps 3 and 9): taken
 * once every token exchange it needs is done, and released naming the etag of the run's last save.
 */
import { SponsonError } from "../../../shared/errors";
import type { Intent, LedgerEntry } from "../../../shared/schemas/receipt";
import { ScopeLock } from "../../locks/scope-lock";
import type { Emit, EngineDeps } from "../deps";
import { itemOfRecord } from "../plan/item";
import type { ProviderContexts } from "../provider-context";
import { originOf } from "./run";
import { runLeaseOptions } from "./run-lease";
import type { RunWaiting, ScopeRequest } from "./scope-request";

/** The lease, and what its release hands the next holder: the run says what it saved, then releases. */
export class HeldScope {
  readonly lock: ScopeLock;
  /** The etag of this run's successful last save, handed to the next holder with the release. */
  #saved: string | null = null;
  /** The run's last save, or the receipt's delete with nothing left, holds every intent. */
  #settled = false;

  constructor(lock: ScopeLock) {
    this.lock = lock;
  }

  saved(etag: string | null): void {
    this.#saved = etag;
  }

  deleted(): void {
    this.#settled = true;
  }

  release(): Promise<void> {
    return this.lock.release(this.#saved, this.#saved !== null || this.#settled);
  }
}

/** What taking the scope lease needs: the run it is for, and the connections prepared so far. */
export interface ScopeAsk {
  deps: EngineDeps;
  req: ScopeRequest;
  runId: string;
  emit: Emit;
  contexts: ProviderContexts;
  prepared: Set<string>;
  /** The run's wait, its deadline started just before this first lock (`runWaiting`). */
  waiting: RunWaiting;
}

/**
 * Takes the scope lease. Upgrading only: intents a scope lock of a version before 0.2.0
 * still keeps (handed with the grant) may name connections this run did not prepare; their token
 * exchanges must not happen under a lease, so the run gives the lease back (the lock keeps the
 * intents), prepares them and asks again, once per new connection at most. Once no lock keeps
 * any (docs/design.md, "Intent recovery"), the first grant is always the one kept.
 */
export async function takeScope({
  deps,
  req,
  runId,
  emit,
  contexts,
  prepared,
  waiting,
}: ScopeAsk): Promise<HeldScope> {
  for (;;) {
    const lease = await ScopeLock.acquire(
      deps.locks.scope(req.repository.id, req.environment, req.scope),
      runId,
      runLeaseOptions(deps, waiting, {
        onWaiting: (report) => emit({ type: "waiting", waiting: report }),
        origin: originOf(req),
      }),
    );
    const missing = recordConnections(deps, lease.pendingIntents, req.environment).filter(
      (c) => !prepared.has(c),
    );
    if (missing.length === 0) return new HeldScope(lease);
    await lease.release();
    for (const name of missing) prepared.add(name);
    await contexts.prepare(missing);
  }
}

/**
 * The connections stored records were written through, for their token exchanges before the
 * lease. A record whose connection is gone is skipped here: the line that needs it fails then,
 * with the reason, and nothing is exchanged for it.
 */
export function recordConnections(
  deps: EngineDeps,
  records: ReadonlyArray<LedgerEntry | Intent>,
  environment: string,
): string[] {
  const names: string[] = [];
  for (const record of records) {
    try {
      names.push(itemOfRecord(record, deps.ops, deps.connections, environment).connection);
    } catch (err) {
      if (!(err instanceof SponsonError)) throw err;
    }
  }
  return names;
}
