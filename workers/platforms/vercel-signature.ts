/**
 * Vercel's `x-vercel-signature` (docs/webhooks.md, "Vercel"): the lowercase hex HMAC-SHA1 of the raw
 * body under the webhook's secret (an integration's client secret, or an account webhook's own).
 * Nothing else is signed: no timestamp, so a captured event can be replayed; the scope-state
 * object's event ids make a replay change nothing.
 */
import { verifyHexHmac } from "./hmac-hex";

const SIGNATURE = /^[0-9a-f]{40}$/;

export async function verifyVercelSignature(
  secret: string,
  body: Uint8Array,
  header: string | undefined,
): Promise<boolean> {
  if (header === undefined) return false;
  const hex = header.trim();
  if (!SIGNATURE.test(hex)) return false;
  return verifyHexHmac("SHA-1", secret, body, hex);
}
