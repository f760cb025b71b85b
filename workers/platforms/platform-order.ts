/**
 * Whether a queued apply of one deployment may still run (docs/design.md, "The platform door"),
 * from the scope's heads read under its scope lease: not when its connection accepted another
 * deployment since, created at or after it — that one's apply wins wherever the two meet. Pure.
 * The heads themselves are decided by the scope-state object (durable-objects/platform-head-rules.ts).
 */
import type { PlatformHead } from "../../shared/rpc/scope-state";

export function supersededBy(head: PlatformHead | undefined, deployment: PlatformHead): PlatformHead | null {
  if (head === undefined || head.deploymentId === deployment.deploymentId) return null;
  return head.createdAt >= deployment.createdAt ? head : null;
}
