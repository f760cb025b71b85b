/**
 * The staleness recheck's decision (docs/design.md, "Staleness recheck") is a pure function of the
 * scope state read before the lease, the state read under it and a queued destroy's guard: every
 * answer it gives is checked here without a lock, a receipt or a provider.
 */
import { describe, expect, it } from "vitest";
import { closedBeforeLease, recheckScope, type ScopeSnapshot } from "../../workers/engine/rules/staleness";

const open = (revision: number): ScopeSnapshot => ({ status: "open", revision });
const closed = (revision: number): ScopeSnapshot => ({ status: "closed", revision });
const scope = "pr-7";

describe("before the lease", () => {
  it("refuses an apply on a closed scope as closed, not retriable", () => {
    const error = closedBeforeLease("apply", scope, closed(5));
    expect(error?.code).toBe("CONCURRENT_MODIFICATION");
    expect(error?.message).toContain("scope pr-7 is closed");
    expect(error?.retriable).toBe(false);
  });

  it("lets every other action on a closed scope, and an apply on an open or unknown one, go on", () => {
    for (const action of ["destroy", "rollback", "recover", "preview"] as const) {
      expect(closedBeforeLease(action, scope, closed(5))).toBeNull();
    }
    expect(closedBeforeLease("apply", scope, open(5))).toBeNull();
    expect(closedBeforeLease("apply", scope, null)).toBeNull();
  });
});

describe("under the lease", () => {
  it("goes on when status and revision are unchanged", () => {
    expect(recheckScope({ action: "apply", scope, before: open(3), after: open(3), guard: null })).toEqual({
      kind: "go",
    });
  });

  it("refuses any change, even a reopen a fresh authorization would allow", () => {
    const reopened = recheckScope({ action: "apply", scope, before: closed(3), after: open(4), guard: null });
    expect(reopened.kind).toBe("refuse");
    if (reopened.kind !== "refuse") return;
    expect(reopened.error.code).toBe("CONCURRENT_MODIFICATION");
    expect(reopened.error.message).toBe("scope changed since authorization — re-read and retry");
    expect(reopened.error.detail).toEqual({ scope, scopeStatus: "open", revision: 4 });
    const bumped = recheckScope({ action: "destroy", scope, before: open(3), after: open(4), guard: null });
    expect(bumped.kind).toBe("refuse");
  });

  it("says closed when an apply's scope closed meanwhile", () => {
    const decision = recheckScope({ action: "apply", scope, before: open(3), after: closed(4), guard: null });
    expect(decision.kind === "refuse" && decision.error.message).toContain("scope pr-7 is closed");
  });

  it("asks a queued destroy's guard of the state under the lease, and skips with its reason", () => {
    const seen: ScopeSnapshot[] = [];
    const guard = (state: ScopeSnapshot) => {
      seen.push(state);
      return state.status === "open" ? "skipped-reopened: open again" : null;
    };
    expect(recheckScope({ action: "destroy", scope, before: open(6), after: open(6), guard })).toEqual({
      kind: "skip",
      reason: "skipped-reopened: open again",
    });
    expect(recheckScope({ action: "destroy", scope, before: closed(6), after: closed(6), guard })).toEqual({
      kind: "go",
    });
    expect(seen).toEqual([open(6), closed(6)]);
  });

  it("checks nothing when the scope has no state to compare (no gate wired)", () => {
    const guard = () => "never asked";
    expect(recheckScope({ action: "destroy", scope, before: null, after: null, guard })).toEqual({
      kind: "go",
    });
  });
});
