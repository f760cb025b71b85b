/** Readers for the "when may I retry" headers providers send with a 429 (each provider's API reference). */

/** The header holds a UNIX time in seconds (Auth0, Okta `x-ratelimit-reset`). */
export function epochSecondsResetHeader(name: string) {
  return (response: Response, nowMs: number): number | undefined => {
    const value = Number(response.headers.get(name));
    if (!response.headers.has(name) || !Number.isFinite(value)) return undefined;
    return Math.max(0, value * 1000 - nowMs);
  };
}

/** The header holds seconds until the reset (Supabase, Kinde; also HTTP `retry-after` seconds). */
export function secondsResetHeader(name: string) {
  return (response: Response, _nowMs: number): number | undefined => {
    const value = Number(response.headers.get(name));
    if (!response.headers.has(name) || !Number.isFinite(value)) return undefined;
    return Math.max(0, value * 1000);
  };
}

/** A value this large is a UNIX time in seconds, not a number of seconds to wait (2001 onwards). */
const EPOCH_SECONDS_FROM = 1_000_000_000;

/**
 * When a throttled answer says calls pass again, from whichever rate-limit header it carries
 * (`Retry-After` in seconds or as an HTTP date; `X-RateLimit-Reset`, `X-Rate-Limit-Reset`,
 * `RateLimit-Reset` as epoch seconds or seconds to wait, told apart by size): what drains a
 * provider's budget (docs/design.md, "Write budgets") when its adapter reads no header itself.
 */
export function rateLimitResetAtMs(response: Response, nowMs: number): number | undefined {
  const retryAfter = response.headers.get("retry-after");
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    if (retryAfter.trim() !== "" && Number.isFinite(seconds)) return nowMs + Math.max(0, seconds) * 1000;
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return date;
  }
  for (const name of ["x-ratelimit-reset", "x-rate-limit-reset", "ratelimit-reset"]) {
    const value = Number(response.headers.get(name) ?? Number.NaN);
    if (!Number.isFinite(value) || value < 0) continue;
    return value >= EPOCH_SECONDS_FROM ? value * 1000 : nowMs + value * 1000;
  }
  return undefined;
}
