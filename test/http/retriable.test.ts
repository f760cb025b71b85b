/**
 * `retriable` is true only where the same request, sent again unchanged, can succeed: CI that
 * honours it would otherwise loop until its timeout. The code table gives the usual answer; an
 * error whose cause is known to be permanent says so on the instance, and that survives RPC.
 */
import { describe, expect, it } from "vitest";
import { ERROR_CODES, ERROR_TABLE, SponsonError } from "../../shared/errors";
import { SecretRegistry } from "../../shared/secrets";
import { providerError } from "../../workers/adapters/http/provider-error";
import { scopeClosedError } from "../../workers/engine/rules/scope-closed";
import { problemOf } from "../../workers/http/problem";

describe("retriable", () => {
  it("each code's default is true only for causes that pass: a busy, lost or overloaded lock, a concurrent writer, throttling, a provider outage", () => {
    const retriable = ERROR_CODES.filter((code) => ERROR_TABLE[code].retriable);
    expect(retriable).toEqual([
      "LOCK_HELD",
      "LOCK_LOST",
      "LOCK_UNAVAILABLE",
      "CONCURRENT_MODIFICATION",
      "RATE_LIMITED",
      "PROVIDER_ERROR",
      "AUDIT_UNAVAILABLE",
      "BUDGET_EXHAUSTED",
    ]);
  });

  it("an apply to a closed scope is a 409 that is not retriable and says to reopen the pull request", () => {
    const problem = problemOf(scopeClosedError("pr-2", { status: "closed", revision: 1_557_933_678_000 }));
    expect(problem).toMatchObject({
      status: 409,
      code: "CONCURRENT_MODIFICATION",
      retriable: false,
      scopeStatus: "closed",
      revision: 1_557_933_678_000,
    });
    expect(problem.detail).toMatch(/scope pr-2 is closed/);
    expect(problem.detail).toMatch(/Reopen the pull request/);
  });

  it("an override survives the trip through an ErrorInfo (RPC, receipts) and the default adds nothing", () => {
    const closed = scopeClosedError("pr-7", { status: "closed", revision: 5 });
    expect(closed.toInfo().retriable).toBe(false);
    expect(SponsonError.fromInfo(closed.toInfo()).retriable).toBe(false);
    const plain = new SponsonError("CONCURRENT_MODIFICATION", "receipt changed");
    expect(plain.retriable).toBe(true);
    expect("retriable" in plain.toInfo()).toBe(false);
    // Asking for the code's own default is no override.
    expect(
      "retriable" in new SponsonError("LOCK_HELD", "busy", undefined, { retriable: true }).toInfo(),
    ).toBe(false);
  });

  it("a provider's 4xx refusal is not retriable; no answer, a timeout, 429 and 5xx are", () => {
    const secrets = new SecretRegistry();
    const failure = (status: number | null) =>
      providerError(secrets, { provider: "auth0", status, message: "m", attempts: 1 }).retriable;
    expect([400, 401, 403, 404, 422].map(failure)).toEqual([false, false, false, false, false]);
    expect([null, 408, 429, 500, 503].map(failure)).toEqual([true, true, true, true, true]);
    const problem = problemOf(
      providerError(secrets, { provider: "auth0", status: 404, message: "client not found", attempts: 1 }),
    );
    expect(problem).toMatchObject({ status: 502, code: "PROVIDER_ERROR", retriable: false });
  });
});
