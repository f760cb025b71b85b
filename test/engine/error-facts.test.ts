/**
 * The facts of an error's detail that steer control flow (shared/errors.ts ErrorFacts): typed on
 * SponsonError, kept through its wire form, and never added to what crosses the wire.
 */
import { describe, expect, it } from "vitest";
import { factsOf, SponsonError } from "../../shared/errors";

describe("SponsonError facts", () => {
  const unknown = new SponsonError("PROVIDER_ERROR", "auth0: 503", { status: 503, outcome: "unknown" });

  it("reads the outcome, the provider's status and untaken from the detail, typed", () => {
    expect([unknown.outcome, unknown.providerStatus, unknown.untaken]).toEqual(["unknown", 503, false]);
    const held = new SponsonError("LOCK_HELD", "held", { lock: "k", untaken: true });
    expect([held.outcome, held.providerStatus, held.untaken]).toEqual([undefined, null, true]);
    // Control: values of the wrong type are no facts (a status the network never gave is null).
    const odd = new SponsonError("PROVIDER_ERROR", "x", { status: null, outcome: "landed", untaken: "yes" });
    expect([odd.outcome, odd.providerStatus, odd.untaken]).toEqual([undefined, null, false]);
  });

  it("keeps them through the wire form, which carries the detail alone", () => {
    const cause = new Error("socket closed");
    const err = new SponsonError(
      "PROVIDER_ERROR",
      "auth0: 503",
      { status: 503, outcome: "unknown" },
      { cause },
    );
    expect(err.cause).toBe(cause);
    const info = err.toInfo();
    expect(info).toEqual({
      code: "PROVIDER_ERROR",
      message: "auth0: 503",
      detail: { status: 503, outcome: "unknown" },
    });
    expect(SponsonError.fromInfo(info).outcome).toBe("unknown");
    expect(factsOf(info)).toEqual({
      outcome: "unknown",
      providerStatus: 503,
      untaken: false,
      sent: undefined,
    });
    expect(Object.keys(err)).not.toContain("outcome");
  });

  it("reads anything: no detail, no facts", () => {
    expect(factsOf(undefined)).toEqual({
      outcome: undefined,
      providerStatus: null,
      untaken: false,
      sent: undefined,
    });
    expect(factsOf({ detail: { sent: false } }).sent).toBe(false);
  });
});
