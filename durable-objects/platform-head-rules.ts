/**
 * The deployment order of a scope's platform events (docs/design.md, "The platform door"): pure
 * decisions, no I/O, no clock. A platform delivers its events in no guaranteed order and may
 * deliver one twice; the deployment's creation time, as the platform says it, orders them, so an
 * older deployment's event never takes a newer one's place. The same deployment again (Vercel's
 * `created`, then `succeeded`) is accepted: its apply writes the same URLs, and a second chance
 * heals a first apply that failed. Two deployments created in the same millisecond cannot be
 * ordered: the one already accepted stays.
 */
import type { PlatformHead, PlatformOutcome, ScopeStatus } from "../shared/rpc/scope-state";

export type PlatformDecision = Exclude<PlatformOutcome, { kind: "duplicate" }>;

export function decidePlatformEvent(
  status: ScopeStatus,
  head: PlatformHead | null,
  event: PlatformHead,
): PlatformDecision {
  // A closed pull request's deploy would put back what its destroy removes (docs/design.md,
  // "Staleness recheck"); its apply would be refused anyway.
  if (status === "closed") return { kind: "ignored", reason: "closed", head };
  if (head === null) return { kind: "accepted", reason: "first", head: event };
  if (event.deploymentId === head.deploymentId) return { kind: "accepted", reason: "same-deployment", head };
  if (event.createdAt > head.createdAt) return { kind: "accepted", reason: "newer", head: event };
  return { kind: "ignored", reason: event.createdAt === head.createdAt ? "tie" : "older", head };
}
