/**
 * Where a Cloudflare Access assertion arrives (docs/security.md, "Cloudflare Access"): Cloudflare's
 * edge adds the `Cf-Access-Jwt-Assertion` header to every request it lets through, and the browser
 * holds the `CF_Authorization` cookie. Both are ambient (the browser sends them on any request to
 * the service, a foreign site's included), so the cookie counts on dashboard paths only, like the
 * dashboard session, and a state-changing request they authenticate must come from this origin.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { SponsonError } from "../../shared/errors";

export const ACCESS_HEADER = "cf-access-jwt-assertion";
export const ACCESS_COOKIE = "CF_Authorization";

/** The assertion of this request: the header anywhere, the cookie on dashboard paths only. */
export function accessAssertion(c: Context, onDashboard: boolean): string | undefined {
  const header = c.req.header(ACCESS_HEADER)?.trim();
  if (header) return header;
  if (!onDashboard) return undefined;
  const cookie = getCookie(c, ACCESS_COOKIE);
  return cookie && cookie.length > 0 ? cookie : undefined;
}

const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * An ambient credential may change state only from a page of this origin (`Origin` ours, or
 * `Sec-Fetch-Site: same-origin` when the browser strips it); tools send `Authorization` instead.
 */
export function assertAmbientRequestSafe(c: Context): void {
  if (SAFE_METHODS.has(c.req.method)) return;
  const origin = c.req.header("origin");
  if (origin !== undefined && origin !== "null") {
    if (origin === new URL(c.req.url).origin) return;
  } else if (c.req.header("sec-fetch-site") === "same-origin") return;
  throw new SponsonError(
    "FORBIDDEN",
    "a request signed in by Cloudflare Access may change state only from this service's own pages; tools send Authorization: Bearer <token>",
    { rule: "access.same-origin" },
  );
}
