import type { BudgetView } from "../budget";

/**
 * Auth0's answers: the Management API error envelope `{statusCode, error, message, errorCode}`
 * and the rate-limit headers on every response (reset is UNIX epoch seconds).
 */

/** Reported limit: the self-service paid tier's 50 requests per second. */
export const RATE_LIMIT_PER_SECOND = 50;

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** The window is one second; `remaining` counts down within it per host (in memory, like a gateway). */
const windows = new Map<string, { second: number; used: number }>();

export function rateLimitHeaders(host: string, nowMs: number, exhausted = false): Record<string, string> {
  const second = Math.floor(nowMs / 1000);
  let remaining = 0;
  if (!exhausted) {
    const window = windows.get(host);
    const used = window && window.second === second ? window.used + 1 : 1;
    windows.set(host, { second, used });
    remaining = Math.max(0, RATE_LIMIT_PER_SECOND - used);
  }
  return {
    "x-ratelimit-limit": String(RATE_LIMIT_PER_SECOND),
    "x-ratelimit-remaining": String(remaining),
    "x-ratelimit-reset": String(second + 1),
  };
}

export function json(status: number, body: unknown, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** The Management API envelope; `errorCode` is left out when Auth0 leaves it out. */
export function apiError(
  status: number,
  message: string,
  errorCode: string | undefined,
  headers: Record<string, string>,
  extra: Record<string, unknown> = {},
): Response {
  const body: Record<string, unknown> = { statusCode: status, error: REASONS[status] ?? "Error", message };
  if (errorCode !== undefined) body.errorCode = errorCode;
  return json(status, { ...body, ...extra }, headers);
}

/** The authentication API (/oauth/token) answers in OAuth's shape instead. */
export function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string>,
): Response {
  return json(status, { error, error_description: description }, headers);
}

export const TOO_MANY_REQUESTS =
  "Too many requests. Check the X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset headers.";

/**
 * The rate-limit headers of a tenant whose budget is enforced (knob `budget`, ../budget.ts): the
 * limit, the calls left, and the reset as UNIX seconds, rounded up as Auth0 sends them.
 */
export function budgetHeaders(limit: { burst: number }, view: BudgetView): Record<string, string> {
  return {
    "x-ratelimit-limit": String(limit.burst),
    "x-ratelimit-remaining": String(view.remaining),
    "x-ratelimit-reset": String(Math.ceil(view.resetAtMs / 1000)),
  };
}

/** A call past the tenant's budget: Auth0's 429, with `Retry-After` in seconds beside the reset. */
export function budgetRefusal(limit: { burst: number }, view: BudgetView): Response {
  const resetSeconds = Math.ceil(view.resetAtMs / 1000);
  return apiError(429, TOO_MANY_REQUESTS, "too_many_requests", {
    ...budgetHeaders(limit, { ...view, remaining: 0 }),
    "retry-after": String(Math.max(1, resetSeconds - Math.floor(view.nowMs / 1000))),
  });
}
