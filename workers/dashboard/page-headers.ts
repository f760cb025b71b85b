/**
 * The security headers of every dashboard HTML response (docs/operations.md, "The dashboard"): a
 * per-response CSP nonce for the page's own inline style and script, no caching of pages that show
 * locks and ledgers, no sniffing, and no Referer carrying a dashboard URL elsewhere.
 */
import type { Context } from "hono";
import { contentSecurityPolicy, newNonce } from "./layout";

/** Sets the headers; returns the nonce the page's inline style and script carry. */
export function pageHeaders(c: Context): string {
  const nonce = newNonce();
  c.header("Content-Security-Policy", contentSecurityPolicy(nonce));
  c.header("Cache-Control", "no-store");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  return nonce;
}
