/**
 * Tests' scripts over a lock object: the same target with some of its calls made another way (a
 * fault, a barrier, a recorder). Test code only: the product's targets (workers/locks/
 * lock-target.ts) have no override hook; a test wraps what its LockProvider hands out with this.
 */
import type { LockCalls, LockTarget } from "../../workers/locks/lock-target";

export function overriding(target: LockTarget, overrides: Partial<LockCalls>): LockTarget {
  return { ...target, ...overrides };
}
