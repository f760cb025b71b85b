/**
 * The CLI's retries (cli/retry.ts), on a manual clock: what the service marks retriable is sent
 * again after jittered, growing pauses until the budget is spent; what it does not, and LOCK_HELD
 * (the service already waited), is not.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../cli/client";
import { backoffMs, type RetryClock, withRetries } from "../../cli/retry";
import { StepClock } from "../helpers/clock";

/** The kit's StepClock: each pause passes at once, moves time on and is recorded in `sleeps`. */
function manualClock(random = () => 0.5): RetryClock & { sleeps: number[] } {
  const clock = new StepClock(0);
  return { sleeps: clock.sleeps, now: () => clock.now(), sleep: (ms) => clock.sleep(ms), random };
}

const isApiError = (err: unknown): err is ApiError => err instanceof ApiError;

function failing(errors: ApiError[], value = "done") {
  let calls = 0;
  const send = async () => {
    calls++;
    const err = errors.shift();
    if (err) throw err;
    return value;
  };
  return { send, calls: () => calls };
}

describe("retries of retriable answers", () => {
  it("a 429 then a 502 are retried, and the third answer is the result", async () => {
    const clock = manualClock();
    const { send, calls } = failing([
      new ApiError("RATE_LIMITED", "slow down", 429),
      new ApiError("PROVIDER_ERROR", "auth0: 503", 502),
    ]);
    await expect(withRetries(send, { budgetMs: 60_000, clock, isApiError })).resolves.toBe("done");
    expect(calls()).toBe(3);
    expect(clock.sleeps).toEqual([500, 1_000]);
  });

  it("pauses are full jitter under a doubling cap of at most 30 s, and never before Retry-After", () => {
    expect([1, 2, 3, 6, 10].map((n) => backoffMs(n, () => 0.999))).toEqual([999, 1998, 3996, 29970, 29970]);
    expect(backoffMs(1, () => 0)).toBe(0);
    expect(backoffMs(1, () => 0, 5_000)).toBe(5_000);
  });

  it("gives up when the next pause would pass the budget, with the last answer", async () => {
    const clock = manualClock(() => 0.999);
    const errors = Array.from({ length: 20 }, () => new ApiError("NETWORK", "cannot reach", 0));
    const { send, calls } = failing(errors);
    await expect(withRetries(send, { budgetMs: 10_000, clock, isApiError })).rejects.toMatchObject({
      code: "NETWORK",
    });
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10_000);
    expect(calls()).toBe(clock.sleeps.length + 1);
  });

  it("a zero budget sends once", async () => {
    const { send, calls } = failing([new ApiError("RATE_LIMITED", "slow down", 429)]);
    await expect(withRetries(send, { budgetMs: 0, clock: manualClock(), isApiError })).rejects.toThrow();
    expect(calls()).toBe(1);
  });
});

describe("what is not retried", () => {
  it.for([
    ["VALIDATION", new ApiError("VALIDATION", "bad plan", 400)],
    ["LOCK_HELD", new ApiError("LOCK_HELD", "held by another run", 409)],
    [
      "a problem that says retriable: false",
      new ApiError("CONCURRENT_MODIFICATION", "scope closed", 409, {
        type: "https://sponson.dev/problems/concurrent-modification",
        title: "closed",
        status: 409,
        code: "CONCURRENT_MODIFICATION",
        detail: "scope closed",
        retriable: false,
      }),
    ],
    ["an unreadable answer", new ApiError("BAD_RESPONSE", "not JSON", 200)],
  ] as const)("%s", async ([, err]) => {
    const { send, calls } = failing([err]);
    await expect(withRetries(send, { budgetMs: 60_000, clock: manualClock(), isApiError })).rejects.toBe(err);
    expect(calls()).toBe(1);
  });
});
