/**
 * Netlify's `X-Webhook-Signature` (docs/webhooks.md, "Netlify"): a compact JWS, HS256 under the
 * hook's JWS secret, whose claims are `iss: "netlify"` and `sha256`, the hex SHA-256 of the raw body.
 * The MAC is checked first (jose, constant time), then the issuer, then the body's hash, so no
 * claim of an unverified token is ever looked at. Nothing time-bound is signed (no `iat`, `exp`):
 * a captured delivery can be replayed; the same bytes are the same event (./netlify-webhook.ts).
 */
import { jwtVerify } from "jose";
import { sha256Hex } from "./hmac-hex";

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_HEADER = 4096;

export async function verifyNetlifySignature(
  secret: string,
  body: Uint8Array,
  header: string | undefined,
): Promise<boolean> {
  if (secret.length === 0 || header === undefined) return false;
  const token = header.trim();
  if (token.length > MAX_HEADER || !COMPACT_JWS.test(token)) return false;
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      algorithms: ["HS256"],
      issuer: "netlify",
    });
    return typeof payload.sha256 === "string" && payload.sha256.toLowerCase() === (await sha256Hex(body));
  } catch {
    return false;
  }
}
