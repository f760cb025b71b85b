/**
 * Clerk's answers: JSON (`application/json`, which @clerk/backend checks exactly), errors in the
 * ClerkErrors envelope `{ errors: [{ message, long_message, code, meta? }], clerk_trace_id }`, and
 * its rate limit: per secret key, 100 requests per 10 s on a development instance (`sk_test_`),
 * 1,000 on production (`sk_live_`); over it, 429 with `Retry-After` in seconds.
 */

export function clerkJson(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export function clerkError(
  status: number,
  code: string,
  message: string,
  longMessage: string,
  meta?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Response {
  const error = { message, long_message: longMessage, code, ...(meta ? { meta } : {}) };
  return clerkJson(
    status,
    { errors: [error], clerk_trace_id: crypto.randomUUID().replaceAll("-", "") },
    headers,
  );
}

export const notFound = (what: string, id: string) =>
  clerkError(
    404,
    "resource_not_found",
    `${what} not found`,
    `No ${what.replaceAll(" ", "")} exists with id: ${id}`,
  );

export const WINDOW_MS = 10_000;
export const rateLimitOf = (secretKey: string) => (secretKey.startsWith("sk_live_") ? 1_000 : 100);
const windows = new Map<string, { start: number; used: number }>();

/** Counts one request of `secretKey`; a 429 when the window's budget is spent. */
export function overRateLimit(secretKey: string, nowMs: number): Response | null {
  let window = windows.get(secretKey);
  if (!window || nowMs - window.start >= WINDOW_MS) window = { start: nowMs, used: 0 };
  window.used += 1;
  windows.set(secretKey, window);
  if (window.used <= rateLimitOf(secretKey)) return null;
  return tooManyRequests(Math.max(1, Math.ceil((window.start + WINDOW_MS - nowMs) / 1000)));
}

export const tooManyRequests = (retryAfterSeconds: number) =>
  clerkError(
    429,
    "too_many_requests",
    "Too many requests",
    "Too many requests, please try again later.",
    undefined,
    { "retry-after": String(retryAfterSeconds) },
  );
