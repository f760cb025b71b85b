/**
 * The scope lease as a run takes and holds it (docs/design.md, "Run algorithm", steps 3 and 9): taken
 * once every token exchange it needs is done, and released naming the etag of the run's last save.
 */
import { SponsonError } from "../../../shared/errors";
import type { Intent, LedgerEntry } from "../../../shared/schemas/receipt";
import { ScopeLease } from "../../locks/scope-lock";
import type { Emit, EngineDeps } from "../deps";
import { runLeaseOptions } from "../lease/lease-settings";
import { itemOfRecord } from "../plan/item";
import { originOf } from "./run";
import type { RunWaiting, ScopeRequest } from "./scope-request";

/** The lease, and what its release hands the next holder: the run says what it saved, then releases. */
export class HeldScope {
  readonly lock: ScopeLease;
  /** The etag of this run's successful last save, handed to the next holder with the release. */
  #saved: string | null = null;

  constructor(lock: ScopeLease) {
    this.lock = lock;
  }

  saved(etag: string | null): void {
    this.#saved = etag;
  }

  release(): Promise<void> {
    return this.lock.release(this.#saved);
  }
}

/** What taking the scope lease needs: the run it is for, and its wait. */
export interface ScopeAsk {
  deps: EngineDeps;
  req: ScopeRequest;
  runId: string;
  emit: Emit;
  /** The run's wait, its deadline started just before this first lock (`runWaiting`). */
  waiting: RunWaiting;
}

/**
 * Takes the scope lease. A lock that still keeps intents a holder of 0.1.x left there (upgrading
 * only; deleted in 0.4.0 with workers/upgrade/) is given back at once and the run refused, retriable:
 * those intents are in no receipt yet, so a run that went on would neither recover them nor keep
 * its own saves from hiding them. The upgrade drains them into the receipt under this same lease
 * (docs/upgrading.md), after which the retry recovers them like any other.
 */
export async function takeScope({ deps, req, runId, emit, waiting }: ScopeAsk): Promise<HeldScope> {
  const lease = await ScopeLease.acquire(
    deps.locks.scope(req.repository.id, req.environment, req.scope),
    runId,
    runLeaseOptions(deps, waiting, {
      onWaiting: (report) => emit({ type: "waiting", waiting: report }),
      origin: originOf(req),
    }),
  );
  if (!lease.legacyIntents) return new HeldScope(lease);
  await lease.release();
  throw legacyIntentsKept(lease.target.key);
}

/** The refusal of a scope whose lock of 0.1.x keeps intents the upgrade has not drained yet. */
export function legacyIntentsKept(lock: string): SponsonError {
  return new SponsonError(
    "CONCURRENT_MODIFICATION",
    `the scope lock ${lock} still keeps intents written by 0.1.x that no receipt holds yet: the upgrade moves them into the receipt (the sweep runs it, or an admin calls POST /v1/admin/upgrade); retry once it has`,
    { lock, upgrade: "legacy-intents" },
  );
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
