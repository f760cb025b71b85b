/**
 * Vercel REST's answers: JSON bodies, errors as `{ error: { code, message } }` (invalid tokens add
 * `invalidToken: true`), and on every answer the rate-limit headers Vercel sends
 * (`x-ratelimit-limit`, `-remaining`, `-reset` in epoch seconds).
 */
export const VERCEL_RATE_LIMIT = 100;

export function vercelHeaders(nowMs: number): Record<string, string> {
  return {
    "x-ratelimit-limit": String(VERCEL_RATE_LIMIT),
    "x-ratelimit-remaining": String(VERCEL_RATE_LIMIT - 1),
    "x-ratelimit-reset": String(Math.ceil(nowMs / 1000) + 60),
    "x-vercel-id": `iad1::${crypto.randomUUID().slice(0, 8)}`,
  };
}

export function reply(status: number, body: unknown, nowMs: number): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...vercelHeaders(nowMs) },
  });
}

export function vercelError(
  status: number,
  code: string,
  message: string,
  nowMs: number,
  extra: Record<string, unknown> = {},
): Response {
  return reply(status, { error: { code, message, ...extra } }, nowMs);
}
