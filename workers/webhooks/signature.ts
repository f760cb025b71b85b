/**
 * GitHub's `X-Hub-Signature-256`: `sha256=` + hex HMAC-SHA256 of the raw body under the webhook
 * secret. Verified with WebCrypto's `verify`, which compares in constant time inside the runtime
 * (a string `===` on hex digests would leak how many leading characters match). The bytes
 * verified are exactly the bytes received: re-serialising parsed JSON would not round-trip.
 */
const SIGNATURE_PATTERN = /^sha256=([0-9a-f]{64})$/;

export async function verifyGithubSignature(
  secret: string,
  body: Uint8Array,
  header: string | undefined,
): Promise<boolean> {
  if (secret.length === 0 || header === undefined) return false;
  const match = SIGNATURE_PATTERN.exec(header.trim().toLowerCase());
  if (!match?.[1]) return false;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  return crypto.subtle.verify("HMAC", key, hexToBytes(match[1]), body);
}

function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
