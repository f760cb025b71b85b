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
