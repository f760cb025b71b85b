/**
 * Okta's answers: JSON, errors as `{errorCode, errorSummary, errorLink, errorId, errorCauses}`, and
 * X-Rate-Limit-Limit/Remaining/Reset (epoch seconds) on every answer.
 */

const RATE_LIMIT = 100;
const windows = new Map<string, { minute: number; used: number }>();

export function rateHeaders(host: string, nowMs: number, exhausted = false): Record<string, string> {
  const minute = Math.floor(nowMs / 60_000);
  const w = windows.get(host);
  const used = exhausted ? RATE_LIMIT : w && w.minute === minute ? w.used + 1 : 1;
  windows.set(host, { minute, used });
  return {
    "x-rate-limit-limit": String(RATE_LIMIT),
    "x-rate-limit-remaining": String(Math.max(0, RATE_LIMIT - used)),
    "x-rate-limit-reset": String(exhausted ? Math.floor(nowMs / 1000) + 2 : (minute + 1) * 60),
  };
}

export function reply(status: number, body: unknown, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export function oktaError(
  status: number,
  code: string,
  summary: string,
  headers: Record<string, string>,
  causes: string[] = [],
): Response {
  return reply(
    status,
    {
      errorCode: code,
      errorSummary: summary,
      errorLink: code,
      errorId: `oae${crypto.randomUUID().replaceAll("-", "").slice(0, 19)}`,
      errorCauses: causes.map((errorSummary) => ({ errorSummary })),
    },
    headers,
  );
}
