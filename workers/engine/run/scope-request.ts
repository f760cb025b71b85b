/** What a run is asked: the scope, and for apply and preview the plan (docs/design.md, "Run algorithm"). */
import type { Plan } from "../../../shared/schemas/plan";
import type { Provenance } from "../../../shared/schemas/provenance";
import type { RepositoryRef } from "../../../shared/schemas/repository";
import type { EngineDeps, ScopeSnapshot } from "../deps";
import type { WaitPolicy } from "../write/item-writer";
import type { RunMetrics } from "./run-metrics";

export interface ScopeRequest {
  /**
   * The repository the scope belongs to: receipts, the scope lock and the scope state are keyed by its id.
   */
  repository: RepositoryRef;
  environment: string;
  scope: string;
  wait?: boolean;
  waitTimeoutMs?: number;
  /** Started when the request arrived, with its authorization measured (HTTP); else the engine starts them. */
  metrics?: RunMetrics;
  /** Where the run comes from (docs/design.md, "Provenance"): recorded with it and kept on its leases. */
  provenance?: Provenance;
}

/** Apply and preview: a plan, and what its placeholders need besides the scope. */
export interface PlanRequest extends ScopeRequest {
  plan: Plan;
  /** The repository's configured default branch: `{branch}` on scope `main`. */
  defaultBranch?: string;
  /** The commit the run is for: `{sha}`, `{shortSha}`. */
  sha?: string;
  /** Values from CI for `{vars.<name>}` in item params. */
  vars?: Readonly<Record<string, string>>;
  /** An apply with no lines may remove every entry the scope owns (docs/design.md, "Empty plans"). */
  allowEmpty?: boolean;
}

/**
 * What a queued destroy asks of the scope state read under the lease (docs/design.md, "Webhooks and the
 * sweep"): null to go on, or the reason to skip (recorded in the receipt as a skipped run).
 */
export type ScopeGuard = (state: ScopeSnapshot) => string | null;

/** How long the scope lease is waited for: as the request asked, else not at all. */
export function waitingOf(deps: Pick<EngineDeps, "waitTimeoutMs">, req: ScopeRequest): WaitPolicy {
  return { wait: req.wait ?? false, waitTimeoutMs: req.waitTimeoutMs ?? deps.waitTimeoutMs };
}
