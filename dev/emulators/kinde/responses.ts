/** Kinde's answers: JSON bodies, errors as `{errors:[{code, message}]}` (a 429 carries RateLimit-Reset). */

export function reply(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export const kindeError = (
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
) => reply(status, { errors: [{ code, message }] }, headers);

/** What every write answers. */
export const ok = () => reply(200, { code: "OK", message: "Success" });
