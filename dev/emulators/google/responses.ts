/** Google's error envelope `{error:{code, message, status, errors?}}`. */

export function googleJson(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=UTF-8", ...headers },
  });
}

export const GOOGLE_STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  412: "FAILED_PRECONDITION",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

export interface LegacyReason {
  reason: string;
  domain?: string;
  locationType?: string;
  location?: string;
}

/** `errors` is the older per-reason list (Cloud Storage still sends it; Identity Platform does not). */
export function googleError(
  status: number,
  message: string,
  reason?: LegacyReason,
  headers: Record<string, string> = {},
): Response {
  const error: Record<string, unknown> = { code: status, message };
  if (reason) error.errors = [{ message, domain: "global", ...reason }];
  error.status = GOOGLE_STATUS[status] ?? "UNKNOWN";
  return googleJson(status, { error }, headers);
}

export const UNAUTHENTICATED_MESSAGE =
  "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.";

/** Google sends Retry-After on some 429s; the emulator always does, in seconds. */
export const RETRY_AFTER_SECONDS = 2;
