/** What a run is asked: the scope, and for apply and preview the plan (docs/design.md, "Run algorithm"). */
import type { PlatformValues } from "../../../shared/placeholders";
import type { Plan } from "../../../shared/schemas/plan";
import type { Provenance } from "../../../shared/schemas/provenance";
import type { RepositoryRef } from "../../../shared/schemas/repository";
import { WaitDeadline } from "../../locks/wait-deadline";
import type { EngineDeps } from "../deps";
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
  /** The run's wait budget: one deadline for every lock it waits on (`runWaiting`). */
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
  /** A platform connection's deployment, for its plan's platform placeholders ("The platform door"). */
  platform?: PlatformValues;
}

/** A run's wait: whether its request waits for held locks, and the one deadline every wait ends at. */
export type RunWaiting = Required<WaitPolicy>;

/**
 * How a run waits for its locks (docs/design.md, "Lease protocol": the run's side): as the request
 * asked (else not at all), and in all no longer than its wait timeout (else WAIT_TIMEOUT_SECONDS),
 * one deadline from now for every lock. Made once per run, when it asks for its first lock.
 */
export function runWaiting(deps: Pick<EngineDeps, "waitTimeoutMs" | "clock">, req: ScopeRequest): RunWaiting {
  const budgetMs = req.waitTimeoutMs ?? deps.waitTimeoutMs;
  return { wait: req.wait ?? false, deadline: WaitDeadline.start(budgetMs, deps.clock) };
}

/**
 * Removals and recovery always wait (giving up would leave an entry no receipt records), until the
 * run's same deadline; past it they ask once, and what they could not do stays in the receipt.
 */
export function alwaysWaiting(waiting: RunWaiting): RunWaiting {
  return { wait: true, deadline: waiting.deadline };
}
