/**
 * Which pages may open the lock feed's socket (docs/security.md, "The lock feed"). Browsers send
 * `Origin` on every WebSocket handshake and WebSockets are not bound by CORS, so a foreign page
 * could otherwise open the feed with the viewer's ambient cookie (cross-site WebSocket hijacking):
 * a request with `Origin` must come from this service's own origin (the request's, or
 * SPONSON_PUBLIC_URL's when set). A request without one is not a browser's (the CLI, a script with
 * its own bearer token) and is accepted.
 */
import type { Context } from "hono";
import { SponsonError } from "../../shared/errors";

/** The origins a browser socket may come from; `publicUrl` is SPONSON_PUBLIC_URL, if set. */
export function feedOrigins(requestUrl: string, publicUrl: string | null): string[] {
  const origins = [new URL(requestUrl).origin];
  if (publicUrl !== null && URL.canParse(publicUrl)) origins.push(new URL(publicUrl).origin);
  return origins;
}

export function assertFeedOrigin(c: Context, publicUrl: string | null): void {
  const origin = c.req.header("origin");
  if (origin === undefined) return;
  // "null" is a browser's opaque origin (a sandboxed frame, a file): never ours.
  if (feedOrigins(c.req.url, publicUrl).includes(origin)) return;
  throw new SponsonError(
    "FORBIDDEN",
    "the lock feed accepts browser sockets from this service's own pages only",
    {
      rule: "feed.origin",
    },
  );
}
