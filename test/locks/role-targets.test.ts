/**
 * One call surface per role (docs/design.md, "Lease protocol"): a lease's target has only the calls
 * its role may make, so a scope lease calling a parent lock's `changeOwners` does not compile. The
 * `@ts-expect-error` lines are checked by `npm run typecheck`: each fails it if the call compiles.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  type LockAdminTarget,
  type LockMethod,
  methodsOf,
  type ParentLeaseTarget,
  type ScopeLeaseTarget,
} from "../../workers/locks/lock-target";
import type { ParentLease } from "../../workers/locks/parent-lock";
import type { ScopeLease } from "../../workers/locks/scope-lock";

/** Never called: it only has to typecheck (or, on the marked lines, not to). */
function misuse(scope: ScopeLease, parent: ParentLease, admin: LockAdminTarget): void {
  // @ts-expect-error a scope lease has no parent lock's calls
  void scope.target.changeOwners({ holder: "run-a", token: 1, changes: [] });
  // @ts-expect-error nor an admin's
  void scope.target.forceRelease({ reason: "r", actor: "a" });
  // @ts-expect-error a parent lease cannot force-release its own lock
  void parent.target.forceRelease({ reason: "r", actor: "a" });
  // @ts-expect-error an admin's target takes no lease
  void admin.acquire({ holder: "run-a", ttlMs: 1 });
  void parent.target.changeOwners({ holder: "run-a", token: 1, changes: [] });
}

describe("role targets", () => {
  it("a scope lease's target has no changeOwners; a parent lease's has", () => {
    expectTypeOf<ScopeLeaseTarget>().not.toHaveProperty("changeOwners");
    expectTypeOf<ScopeLeaseTarget>().not.toHaveProperty("owners");
    expectTypeOf<ParentLeaseTarget>().toHaveProperty("changeOwners");
    expectTypeOf<ParentLeaseTarget>().not.toHaveProperty("hold");
    expect(typeof misuse).toBe("function");
  });

  it("no role's target lists more than 13 methods", () => {
    const scope: LockMethod[] = [...methodsOf("lease"), ...methodsOf("legacy")];
    const parent: LockMethod[] = [...methodsOf("lease"), ...methodsOf("parent")];
    const admin: LockMethod[] = methodsOf("admin");
    expect([scope.length, parent.length, admin.length]).toEqual([6, 13, 8]);
  });
});
