/**
 * A run's lease options, assembled once from the engine's deps (docs/design.md, "Lease protocol"):
 * the scope lease, the parent leases and the orphan removal's lease all take the same TTL, clock,
 * wait policy and warnings, and every acquire of a run the run's one wait deadline; each caller
 * adds only what is its own (its origin, its reports, the items its grant should answer). Checked
 * by `leaseOptions` when built, before any lock call.
 */
import { type LeaseOptions, type LeaseSettings, leaseOptions } from "../../locks/lease-options";
import type { WaitPolicy } from "../contracts/writer-parts";
import type { EngineDeps } from "../deps";

export function runLeaseOptions(
  deps: Pick<EngineDeps, "ttlMs" | "clock" | "warn">,
  waiting: WaitPolicy,
  own: Omit<LeaseOptions, "ttlMs" | "wait" | "waitTimeoutMs" | "deadline" | "clock"> = {},
): LeaseSettings {
  return leaseOptions({
    ttlMs: deps.ttlMs,
    wait: waiting.wait,
    ...(waiting.deadline ? { deadline: waiting.deadline } : {}),
    clock: deps.clock,
    ...(deps.warn ? { onWarning: deps.warn } : {}),
    ...own,
  });
}
