/**
 * The dashboard's browser session (docs/security.md, "The dashboard session"): the signed-in token
 * lives in an HttpOnly, Secure, SameSite=Strict cookie and counts as a credential only on /dashboard
 * paths, so the JSON API stays bearer-only and cannot be driven by ambient browser credentials. Every
 * POST the dashboard answers is checked twice against cross-site requests: the Origin must be this
 * service's own, and the form carries a CSRF token bound to the session (see csrfToken).
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { SponsonError } from "../../shared/errors";
import { accessAssertion } from "./access-credential";

/** `__Host-`: the browser only accepts it Secure, with Path=/ and no Domain (RFC 6265bis §4.1.3.2). */
export const SESSION_COOKIE = "__Host-sponson_session";
/** A session never outlives its token, and never lasts more than this. */
export const MAX_SESSION_SECONDS = 12 * 60 * 60;
export const SIGN_IN_PATH = "/dashboard/sign-in";

export function isDashboardPath(path: string): boolean {
  return path === "/dashboard" || path.startsWith("/dashboard/");
}

/**
 * The session token from the cookie, on dashboard paths only; undefined elsewhere or when absent.
 * Without a pasted-token session, a Cloudflare Access assertion is the browser's session
 * (workers/auth/access-credential.ts), so its forms carry a CSRF token bound to it.
 */
export function dashboardSessionToken(c: Context): string | undefined {
  if (!isDashboardPath(c.req.path)) return undefined;
  const value = getCookie(c, SESSION_COOKIE);
  return value && value.length > 0 ? value : accessAssertion(c, true);
}

/**
 * A browser that asks for a dashboard page without a (valid) session is sent to the sign-in form
 * instead of getting a problem document; API-style requests keep the 401.
 */
export function signInRedirect(c: Context, clearSession: boolean): Response | null {
  if (c.req.method !== "GET" || !isDashboardPath(c.req.path)) return null;
  if (c.req.header("upgrade")?.toLowerCase() === "websocket") return null;
  if (clearSession) clearSessionCookie(c);
  return c.redirect(clearSession ? `${SIGN_IN_PATH}?error=expired` : SIGN_IN_PATH, 303);
}

export function setSessionCookie(c: Context, token: string, maxAgeSeconds: number): void {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    secure: true,
    sameSite: "Strict",
    path: "/",
    maxAge: Math.max(1, Math.min(MAX_SESSION_SECONDS, Math.floor(maxAgeSeconds))),
  });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { httpOnly: true, secure: true, sameSite: "Strict", path: "/" });
}

/**
 * The per-session CSRF token: SHA-256 over a label and the session token. Only someone holding
 * the session token (HttpOnly, so not page script nor another site) can compute it, and the token
 * itself cannot be recovered from it, so rendering it into forms shows no secret.
 */
export async function csrfToken(sessionToken: string): Promise<string> {
  const data = new TextEncoder().encode(`sponson-dashboard-csrf\u0000${sessionToken}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  let binary = "";
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Constant-time comparison of two short ASCII strings. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function forbidden(message: string, rule: string): SponsonError {
  return new SponsonError("FORBIDDEN", message, { rule });
}

/**
 * A state-changing dashboard request must come from a page of this origin: `Origin` equal to ours
 * (browsers send it on every POST), or, when a privacy setting strips it, `Sec-Fetch-Site:
 * same-origin`. Anything else is refused before the body is looked at.
 */
export function assertSameOrigin(c: Context): void {
  const ours = new URL(c.req.url).origin;
  const origin = c.req.header("origin");
  if (origin !== undefined && origin !== "null") {
    if (origin === ours) return;
    throw forbidden("cross-origin dashboard requests are refused", "dashboard.same-origin");
  }
  if (c.req.header("sec-fetch-site") === "same-origin") return;
  throw forbidden("dashboard requests must come from the dashboard's own pages", "dashboard.same-origin");
}

/** Same origin, a session cookie, and the form's CSRF token matching that session. */
export async function assertDashboardPost(c: Context, submitted: unknown): Promise<void> {
  assertSameOrigin(c);
  const session = dashboardSessionToken(c);
  if (session === undefined) {
    throw forbidden("dashboard actions need a signed-in dashboard session", "dashboard.session");
  }
  const expected = await csrfToken(session);
  if (typeof submitted !== "string" || !sameText(submitted, expected)) {
    throw forbidden("the form's CSRF token is missing or does not match this session", "dashboard.csrf");
  }
}
