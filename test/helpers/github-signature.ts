/**
 * Signs a webhook body like GitHub does (`X-Hub-Signature-256`: `sha256=` + hex HMAC-SHA256 under the
 * webhook secret). Test-only: the Worker only verifies (workers/webhooks/signature.ts).
 */
export async function signGithubPayload(secret: string, body: Uint8Array | string): Promise<string> {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes));
  return `sha256=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
