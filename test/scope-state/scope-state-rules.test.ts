/** The revision guard as a pure table: newer applies, older never rewinds, ties go to closed. */
import { describe, expect, it } from "vitest";
import { decideApply, INITIAL_STATUS } from "../../durable-objects/scope-state-rules";

describe("revision guard", () => {
  it("an event newer than the stored revision applies, whatever the status", () => {
    expect(decideApply({ status: "closed", revision: 10 }, { status: "open", revision: 11 })).toEqual({
      kind: "apply",
    });
    expect(decideApply({ status: "open", revision: 10 }, { status: "closed", revision: 11 })).toEqual({
      kind: "apply",
    });
  });

  it("an event older than the stored revision never rewinds it", () => {
    expect(decideApply({ status: "closed", revision: 10 }, { status: "open", revision: 9 })).toEqual({
      kind: "ignore",
      reason: "older",
    });
    expect(decideApply({ status: "open", revision: 10 }, { status: "closed", revision: 9 })).toEqual({
      kind: "ignore",
      reason: "older",
    });
  });

  it("on a tie closed wins: a close overrides an open, a reopen does not override a close", () => {
    expect(decideApply({ status: "open", revision: 10 }, { status: "closed", revision: 10 })).toEqual({
      kind: "apply",
    });
    expect(decideApply({ status: "closed", revision: 10 }, { status: "open", revision: 10 })).toEqual({
      kind: "ignore",
      reason: "tie-closed-wins",
    });
  });

  it("the same status at the same revision changes nothing", () => {
    expect(decideApply({ status: "closed", revision: 10 }, { status: "closed", revision: 10 })).toEqual({
      kind: "ignore",
      reason: "unchanged",
    });
  });

  it("a scope no event has touched is open at revision 0, older than any real event", () => {
    expect(INITIAL_STATUS).toEqual({ status: "open", revision: 0 });
    expect(decideApply(INITIAL_STATUS, { status: "closed", revision: 1 })).toEqual({ kind: "apply" });
  });
});
