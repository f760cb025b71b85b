import { describe, expect, it } from "vitest";
import { RETRY_MAX_SECONDS, retryDelaySeconds } from "../../workers/queue/retry-backoff";

describe("retry backoff", () => {
  it("doubles from 30 s with each delivery attempt and stops at the cap", () => {
    expect([1, 2, 3, 4].map(retryDelaySeconds)).toEqual([30, 60, 120, 240]);
    expect(retryDelaySeconds(50)).toBe(RETRY_MAX_SECONDS);
  });
});
