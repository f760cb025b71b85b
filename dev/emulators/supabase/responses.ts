/**
 * Supabase's answers: JSON bodies, errors as `{ message }`, and X-RateLimit-* on every answer
 * (Reset counts seconds until the 60 s window ends; 120 requests per minute per token and project).
 */

export type Headers = Record<string, string>;

export const SUPABASE_RATE_LIMIT = 120;
const WINDOW_MS = 60_000;
const windows = new Map<string, { start: number; used: number }>();

/** An injected 429 says the window has this many seconds left. */
const INJECTED_RESET_SECONDS = 5;

export function rateLimit(
  key: string,
  nowMs: number,
  exhausted = false,
): { headers: Headers; over: boolean } {
  let window = windows.get(key);
  if (!window || nowMs - window.start >= WINDOW_MS) window = { start: nowMs, used: 0 };
  if (!exhausted) window.used += 1;
  windows.set(key, window);
  const remaining = exhausted ? 0 : Math.max(0, SUPABASE_RATE_LIMIT - window.used);
  const reset = Math.ceil((window.start + WINDOW_MS - nowMs) / 1000);
  return {
    headers: {
      "x-ratelimit-limit": String(SUPABASE_RATE_LIMIT),
      "x-ratelimit-remaining": String(remaining),
      "x-ratelimit-reset": String(exhausted ? INJECTED_RESET_SECONDS : reset),
    },
    over: exhausted || window.used > SUPABASE_RATE_LIMIT,
  };
}

export function reply(status: number, body: unknown, headers: Headers = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export const message = (status: number, text: string, headers: Headers = {}) =>
  reply(status, { message: text }, headers);

export const FORBIDDEN =
  "Your account does not have the necessary privileges to access this endpoint. For more details, refer to our documentation https://supabase.com/docs/guides/platform/access-control";
