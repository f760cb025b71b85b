/**
 * Keycloak's answers: JSON, and two error shapes — the OAuth one `{error, error_description?}`
 * (validation, 401/403/404, 500) and the `ErrorRepresentation` one `{errorMessage}` (409 on a
 * duplicate clientId). No rate-limit headers: the server is self-hosted and has no limiter.
 */

export function kcJson(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

export const kcError = (status: number, error: string, description?: string) =>
  kcJson(status, description === undefined ? { error } : { error, error_description: description });

export const kcErrorMessage = (status: number, errorMessage: string) => kcJson(status, { errorMessage });

export const kcNoContent = () => new Response(null, { status: 204 });

/** What a failed transaction answers (an OptimisticLockException under concurrent admin writes). */
export const kcServerError = (status = 500) =>
  kcError(status, "unknown_error", "For more on this error consult the server log.");
