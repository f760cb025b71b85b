/**
 * GitHub REST's answers: JSON bodies (`application/json; charset=utf-8`), errors as `{ message,
 * documentation_url, status }` (the status as a string), the X-RateLimit-* headers of the `core`
 * resource (Reset in epoch seconds) and the API version it served, on every answer.
 */

export type Headers = Record<string, string>;

export const GITHUB_RATE_LIMIT = 5000;
export const REST_DOCS = "https://docs.github.com/rest";
export const PULL_DOCS = "https://docs.github.com/rest/pulls/pulls#get-a-pull-request";
export const RATE_LIMIT_DOCS = "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api";
/** The version GitHub serves when the request names none, or names this one. */
export const API_VERSION = "2022-11-28";

export function githubHeaders(remaining: number, nowMs: number): Headers {
  // The hour's window resets at the next full hour (GitHub's own window starts at first use).
  const reset = Math.ceil((nowMs + 1) / 3_600_000) * 3_600;
  return {
    "x-github-api-version-selected": API_VERSION,
    "x-github-media-type": "github.v3; format=json",
    "x-github-request-id": crypto.randomUUID().toUpperCase().slice(0, 23),
    "x-ratelimit-limit": String(GITHUB_RATE_LIMIT),
    "x-ratelimit-remaining": String(remaining),
    "x-ratelimit-reset": String(reset),
    "x-ratelimit-used": String(GITHUB_RATE_LIMIT - remaining),
    "x-ratelimit-resource": "core",
  };
}

export function reply(status: number, body: unknown, headers: Headers = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export function githubError(status: number, message: string, docs = REST_DOCS, headers: Headers = {}) {
  return reply(status, { message, documentation_url: docs, status: String(status) }, headers);
}

/** What GitHub answers a request without a User-Agent (its front end, before any route). */
export function noUserAgent(): Response {
  return new Response(
    "Request forbidden by administrative rules. Please make sure your request has a User-Agent header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required). Check https://developer.github.com for other possible causes.\n",
    { status: 403, headers: { "content-type": "text/plain; charset=utf-8" } },
  );
}
