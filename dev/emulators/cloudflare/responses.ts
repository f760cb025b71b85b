/**
 * Cloudflare's v4 answers: the `{success, errors, messages, result}` envelope, `Ratelimit` and
 * `Ratelimit-Policy` on every answer (1200 requests per 5 minutes), Retry-After on a 429.
 */

const LIMIT = 1200;
const WINDOW_SECONDS = 300;
let used = 0;

function rateHeaders(exhausted = false): Record<string, string> {
  used += 1;
  const remaining = exhausted ? 0 : Math.max(0, LIMIT - (used % LIMIT));
  return {
    ratelimit: `"default";r=${remaining};t=${exhausted ? 5 : WINDOW_SECONDS}`,
    "ratelimit-policy": `"default";q=${LIMIT};w=${WINDOW_SECONDS}`,
  };
}

export function cfEnvelope(
  status: number,
  result: unknown,
  errors: Array<{ code: number; message: string }> = [],
  extra: Record<string, string> = {},
) {
  return new Response(JSON.stringify({ success: errors.length === 0, errors, messages: [], result }), {
    status,
    headers: { "content-type": "application/json", ...rateHeaders(status === 429), ...extra },
  });
}

export const cfError = (status: number, code: number, message: string, extra: Record<string, string> = {}) =>
  cfEnvelope(status, null, [{ code, message }], extra);
