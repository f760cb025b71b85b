/**
 * When a throttled answer says calls pass again, read from whichever rate-limit header it carries
 * (workers/adapters/http/reset-headers.ts): what drains a tenant's budget when the adapter reads
 * no header of its own (docs/design.md, "Write budgets").
 */
import { describe, expect, it } from "vitest";
import { rateLimitResetAtMs } from "../../../workers/adapters/http/reset-headers";

const NOW = 1_800_000_000_000;
const answer = (headers: Record<string, string>) => new Response(null, { status: 429, headers });

describe("the reset a 429 names", () => {
  it.each([
    ["Retry-After in seconds", { "retry-after": "3" }, NOW + 3000],
    ["Retry-After as an HTTP date", { "retry-after": new Date(NOW + 5000).toUTCString() }, NOW + 5000],
    [
      "X-RateLimit-Reset as UNIX seconds (Auth0)",
      { "x-ratelimit-reset": String(NOW / 1000 + 2) },
      NOW + 2000,
    ],
    [
      "X-Rate-Limit-Reset as UNIX seconds (Okta)",
      { "x-rate-limit-reset": String(NOW / 1000 + 60) },
      NOW + 60_000,
    ],
    ["X-RateLimit-Reset as seconds to wait (Supabase)", { "x-ratelimit-reset": "42" }, NOW + 42_000],
    ["RateLimit-Reset as seconds to wait (Kinde)", { "ratelimit-reset": "7" }, NOW + 7000],
    ["Retry-After before any other", { "retry-after": "1", "x-ratelimit-reset": "9" }, NOW + 1000],
  ])("%s", (_name, headers, at) => {
    expect(rateLimitResetAtMs(answer(headers), NOW)).toBe(at);
  });

  it("no header, or none that parses: none (the bucket is drained for one interval)", () => {
    expect(rateLimitResetAtMs(answer({}), NOW)).toBeUndefined();
    expect(
      rateLimitResetAtMs(answer({ "retry-after": "soon", "x-ratelimit-reset": "-1" }), NOW),
    ).toBeUndefined();
  });
});
