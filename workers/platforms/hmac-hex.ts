/**
 * A hex HMAC over the raw body, verified with WebCrypto's `verify`, which compares in constant time
 * inside the runtime (a string `===` on hex digests would leak how many leading characters match).
 * The bytes verified are exactly the bytes received: re-serialising parsed JSON would not round-trip.
 */
export async function verifyHexHmac(
  hash: "SHA-1" | "SHA-256",
  secret: string,
  body: Uint8Array,
  hex: string,
): Promise<boolean> {
  if (secret.length === 0) return false;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash },
    false,
    ["verify"],
  );
  return crypto.subtle.verify("HMAC", key, hexBytes(hex), body);
}

export function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

export async function sha256Hex(body: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}
