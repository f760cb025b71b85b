/**
 * The dashboard (README, "Dashboard"): server-rendered pages, the live fragment the page re-fetches, the
 * lock feed socket, sign-in/out, admin force-release and holds. Roles come from the route table
 * (workers/auth/route-access.ts): sign-in and sign-out are public, reads need viewer, the release
 * and hold POSTs need admin. Every POST here also passes the same-origin and CSRF checks of
 * workers/auth/dashboard-session.ts. Outcomes are redirects (post/redirect/get), so a reload never
 * repeats an action and the notice texts are chosen here, never echoed from the request.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { decodeJwt } from "jose";
import { SponsonError } from "../../shared/errors";
import { lockKind } from "../../shared/lock-keys";
import { LOCK_FEED_NAME } from "../../shared/rpc/lock-feed";
import { holdReasonSchema } from "../../shared/schemas/hold";
import type { AppEnv } from "../app-env";
import { listAudit } from "../audit/audit-trail";
import { authConfigFromEnv } from "../auth/auth-config";
import { roleAtLeast } from "../auth/caller";
import {
  assertDashboardPost,
  assertSameOrigin,
  clearSessionCookie,
  csrfToken,
  dashboardSessionToken,
  SIGN_IN_PATH,
  setSessionCookie,
} from "../auth/dashboard-session";
import { readBinding } from "../auth/read-binding";
import { assertNotRevoked } from "../auth/revoked-tokens";
import { requireRole } from "../auth/route-access";
import { serviceKeySet } from "../auth/service-keys";
import { verifyBearer } from "../auth/verify-token";
import { configFromEnv } from "../config/config";
import { checkConfig } from "../config/config-report";
import { AUDIT_SHOWN } from "../dashboard/audit-trail";
import { MAX_HOLD_MINUTES } from "../dashboard/hold-forms";
import { contentSecurityPolicy, newNonce } from "../dashboard/layout";
import { renderDashboard, renderLive, renderSignIn } from "../dashboard/render";
import { loadSnapshot } from "../dashboard/snapshot";
import { type ViewQuery, viewFilter } from "../dashboard/view-filter";
import { AUTH_CODES, bearerSecurity, problemResponses, publicSecurity } from "../http/openapi-problems";
import { validationHook } from "../http/validation";
import { auditedForceRelease } from "../locks/force-release";
import { auditedHold, auditedUnhold } from "../locks/hold";

const html = { "text/html": { schema: z.string() } };
const redirect = (description: string) => ({
  description,
  headers: { Location: { schema: { type: "string" as const } } },
});

/** The view's filter and page (workers/dashboard/view-filter.ts). */
const VIEW_QUERY = {
  repository: z.string().max(201).optional(),
  environment: z.string().max(63).optional(),
  scope: z.string().max(210).optional(),
  page: z.string().max(6).optional(),
};

function viewOf(c: Context<AppEnv>, query: ViewQuery) {
  return viewFilter(c.get("caller"), query, configFromEnv(c.env).repositories);
}

const pageRoute = createRoute({
  method: "get",
  path: "/dashboard",
  operationId: "dashboard",
  tags: ["dashboard"],
  summary: "The dashboard page: held locks, recent runs, scopes and their ledgers",
  security: bearerSecurity,
  request: {
    query: z.object({
      released: z.string().max(300).optional(),
      refused: z.string().max(40).optional(),
      held: z.string().max(300).optional(),
      lifted: z.string().max(300).optional(),
      ...VIEW_QUERY,
    }),
  },
  responses: {
    200: { description: "The page (a session cookie or a bearer token)", content: html },
    303: redirect("No session: to the sign-in form"),
    ...problemResponses(...AUTH_CODES),
  },
});

const liveRoute = createRoute({
  method: "get",
  path: "/dashboard/live",
  operationId: "dashboardLive",
  tags: ["dashboard"],
  summary: "The live sections of the page, re-fetched by its script",
  security: bearerSecurity,
  request: { query: z.object(VIEW_QUERY) },
  responses: {
    200: { description: "An HTML fragment", content: html },
    303: redirect("No session: to the sign-in form"),
    ...problemResponses(...AUTH_CODES),
  },
});

const feedRoute = createRoute({
  method: "get",
  path: "/dashboard/feed",
  operationId: "dashboardFeed",
  tags: ["dashboard"],
  summary: "WebSocket: one message whenever a lock is taken, freed or queued for",
  security: bearerSecurity,
  responses: {
    101: { description: "Switching to a WebSocket fed by the lock objects" },
    ...problemResponses(...AUTH_CODES, "VALIDATION"),
  },
});

const signInFormRoute = createRoute({
  method: "get",
  path: "/dashboard/sign-in",
  operationId: "dashboardSignInForm",
  tags: ["dashboard"],
  summary: "The sign-in form (public)",
  security: publicSecurity,
  request: {
    query: z.object({
      error: z.enum(["invalid", "expired"]).optional(),
      "signed-out": z.string().optional(),
    }),
  },
  responses: { 200: { description: "The form", content: html } },
});

const signInRoute = createRoute({
  method: "post",
  path: "/dashboard/sign-in",
  operationId: "dashboardSignIn",
  tags: ["dashboard"],
  summary: "Exchange a token for a session cookie (public; same-origin only)",
  security: publicSecurity,
  request: {
    body: {
      content: { "application/x-www-form-urlencoded": { schema: z.object({ token: z.string().max(8192) }) } },
      required: true,
    },
  },
  responses: {
    303: redirect("To the dashboard with the cookie set, or back to the form with an error"),
    ...problemResponses("VALIDATION", "FORBIDDEN", "INTERNAL"),
  },
});

const signOutRoute = createRoute({
  method: "post",
  path: "/dashboard/sign-out",
  operationId: "dashboardSignOut",
  tags: ["dashboard"],
  summary: "Clear the session cookie (public; same-origin and CSRF token)",
  security: publicSecurity,
  request: {
    body: {
      content: {
        "application/x-www-form-urlencoded": { schema: z.object({ csrf: z.string().max(200).optional() }) },
      },
      required: true,
    },
  },
  responses: {
    303: redirect("To the sign-in form"),
    ...problemResponses("VALIDATION", "FORBIDDEN"),
  },
});

// `csrf` is optional in the schema so that a missing token is a 403 from the CSRF check, not a 400.
const releaseForm = z.object({
  csrf: z.string().max(200).optional(),
  key: z.string().min(1).max(300),
  reason: z.string().trim().min(1).max(500),
  confirm: z.literal("yes"),
});

const releaseRoute = createRoute({
  method: "post",
  path: "/dashboard/locks/release",
  operationId: "dashboardForceRelease",
  tags: ["dashboard"],
  // The route table already requires admin (workers/auth/route-access.ts); this is the second lock.
  middleware: [requireRole("admin")] as const,
  summary: "Admin force-release from the dashboard: a reason and a confirmation (same-origin, CSRF)",
  security: bearerSecurity,
  request: {
    body: { content: { "application/x-www-form-urlencoded": { schema: releaseForm } }, required: true },
  },
  responses: {
    303: redirect("Back to the dashboard, naming the released lock"),
    ...problemResponses(...AUTH_CODES, "VALIDATION", "NOT_FOUND"),
  },
});

const holdForm = z.object({
  csrf: z.string().max(200).optional(),
  key: z.string().min(1).max(300),
  reason: holdReasonSchema,
  ttlMinutes: z.coerce.number().int().min(1).max(MAX_HOLD_MINUTES),
});

const holdRoute = createRoute({
  method: "post",
  path: "/dashboard/locks/hold",
  operationId: "dashboardHold",
  tags: ["dashboard"],
  // The route table already requires admin (workers/auth/route-access.ts); this is the second lock.
  middleware: [requireRole("admin")] as const,
  summary: "Admin hold from the dashboard: a key, a reason and minutes (same-origin, CSRF)",
  security: bearerSecurity,
  request: {
    body: { content: { "application/x-www-form-urlencoded": { schema: holdForm } }, required: true },
  },
  responses: {
    303: redirect("Back to the dashboard, naming the held lock"),
    ...problemResponses(...AUTH_CODES, "VALIDATION", "NOT_FOUND"),
  },
});

const unholdRoute = createRoute({
  method: "post",
  path: "/dashboard/locks/unhold",
  operationId: "dashboardUnhold",
  tags: ["dashboard"],
  middleware: [requireRole("admin")] as const,
  summary: "Admin lifts a hold from the dashboard (same-origin, CSRF)",
  security: bearerSecurity,
  request: {
    body: {
      content: {
        "application/x-www-form-urlencoded": {
          schema: z.object({ csrf: z.string().max(200).optional(), key: z.string().min(1).max(300) }),
        },
      },
      required: true,
    },
  },
  responses: {
    303: redirect("Back to the dashboard, naming the lock"),
    ...problemResponses(...AUTH_CODES, "VALIDATION", "NOT_FOUND"),
  },
});

/** Security headers for every dashboard HTML response; returns the nonce for inline style/script. */
function pageHeaders(c: Context<AppEnv>): string {
  const nonce = newNonce();
  c.header("Content-Security-Policy", contentSecurityPolicy(nonce));
  c.header("Cache-Control", "no-store");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  return nonce;
}

/** The session token of this request (the cookie); undefined when a tool calls with a bearer token. */
function sessionOf(c: Context<AppEnv>): string | undefined {
  return dashboardSessionToken(c);
}

async function releaseCsrfFor(c: Context<AppEnv>): Promise<string | null> {
  const session = sessionOf(c);
  if (session === undefined || !roleAtLeast(c.get("caller").role, "admin")) return null;
  return csrfToken(session);
}

const SIGN_IN_ERRORS = {
  invalid: "That token was not accepted. Mint one with `npm run token -- --role viewer` and try again.",
  expired: "Your session ended. Sign in again.",
} as const;

export const dashboardRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(pageRoute, async (c) => {
    const nonce = pageHeaders(c);
    const caller = c.get("caller");
    const session = sessionOf(c);
    const { released, refused, held, lifted, ...query } = c.req.valid("query");
    const filter = viewOf(c, query);
    const snapshot = await loadSnapshot(c.env, Date.now, filter);
    const config = configFromEnv(c.env);
    const choices = {
      repositories: config.repositories.map((r) => ({ id: r.id, name: r.name })),
      environments: [
        ...new Set([
          ...config.environments,
          ...Object.values(config.connections).flatMap((k) => k.environments),
        ]),
      ].sort(),
    };
    const notice =
      released !== undefined
        ? { kind: "ok" as const, text: `Force-released ${released}.` }
        : refused !== undefined
          ? { kind: "bad" as const, text: `${refused} was not held; nothing was released.` }
          : held !== undefined
            ? { kind: "ok" as const, text: `Held ${held}.` }
            : lifted !== undefined
              ? { kind: "ok" as const, text: `Lifted the hold on ${lifted}.` }
              : undefined;
    return c.html(
      renderDashboard({
        nonce,
        subject: caller.subject,
        role: caller.role,
        csrf: session === undefined ? "" : await csrfToken(session),
        snapshot,
        choices,
        releaseCsrf: await releaseCsrfFor(c),
        ...(notice ? { notice } : {}),
        ...(roleAtLeast(caller.role, "admin")
          ? { config: checkConfig(c.env as object as Record<string, unknown>, { secretsKnown: true }) }
          : {}),
        ...(roleAtLeast(caller.role, "admin") ? { audit: await listAudit(c.env, AUDIT_SHOWN) } : {}),
      }),
      200,
    );
  })
  .openapi(liveRoute, async (c) => {
    pageHeaders(c);
    const snapshot = await loadSnapshot(c.env, Date.now, viewOf(c, c.req.valid("query")));
    return c.html(renderLive({ snapshot, releaseCsrf: await releaseCsrfFor(c) }), 200);
  })
  .openapi(feedRoute, async (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new SponsonError("VALIDATION", "GET /dashboard/feed expects a WebSocket upgrade");
    }
    // Cross-site WebSocket hijacking: browsers send Origin on every upgrade; it must be ours.
    assertSameOrigin(c);
    const ns = c.env.LOCK_FEED;
    if (ns === undefined) throw new SponsonError("INTERNAL", "the lock feed is not bound");
    // A fresh request: the browser's cookie and headers stay here and never reach the object. A
    // repository-bound viewer's socket hears only of its repository's scope locks (and parent locks).
    const bound = readBinding(c);
    const connect = `https://lock-feed.internal/connect${bound === null ? "" : `?repository=${bound.id}`}`;
    const upgrade = new Request(connect, { headers: { upgrade: "websocket" } });
    return ns.get(ns.idFromName(LOCK_FEED_NAME)).fetch(upgrade);
  })
  .openapi(signInFormRoute, (c) => {
    const nonce = pageHeaders(c);
    const { error } = c.req.valid("query");
    const signedOut = c.req.valid("query")["signed-out"] !== undefined;
    return c.html(
      renderSignIn({ nonce, signedOut, ...(error ? { error: SIGN_IN_ERRORS[error] } : {}) }),
      200,
    );
  })
  .openapi(signInRoute, async (c) => {
    // Login CSRF: a foreign page must not sign this browser in as someone else.
    assertSameOrigin(c);
    const token = c.req.valid("form").token.trim();
    const config = authConfigFromEnv(c.env);
    const service = await serviceKeySet(config.serviceSigningKey, config.servicePublicKeys);
    try {
      // Same verification as the Authorization header (GitHub keys are not fetched for a form:
      // a GitHub token is a CI credential, not a person's).
      const caller = await verifyBearer(
        token,
        config,
        { github: () => async () => Promise.reject(new Error("not for the dashboard")), service },
        new Date(),
      );
      if (caller.kind !== "service") throw new Error("dashboard sessions take service tokens");
      await assertNotRevoked(c.env.RECEIPTS, caller, Date.now());
      // Verified above, so `exp` is present and in the future.
      setSessionCookie(c, token, (decodeJwt(token).exp ?? 0) - Date.now() / 1000);
      return c.redirect("/dashboard", 303);
    } catch (err) {
      if (err instanceof SponsonError && err.code === "INTERNAL") throw err;
      clearSessionCookie(c);
      // The reason stays generic: nothing about the submitted token goes back to the page.
      return c.redirect(`${SIGN_IN_PATH}?error=invalid`, 303);
    }
  })
  .openapi(signOutRoute, async (c) => {
    if (dashboardSessionToken(c) !== undefined) await assertDashboardPost(c, c.req.valid("form").csrf);
    else assertSameOrigin(c);
    clearSessionCookie(c);
    return c.redirect(`${SIGN_IN_PATH}?signed-out=1`, 303);
  })
  .openapi(releaseRoute, async (c) => {
    const form = c.req.valid("form");
    await assertDashboardPost(c, form.csrf);
    if (lockKind(form.key) === null) throw new SponsonError("NOT_FOUND", "that is not a lock key");
    const { outcome } = await auditedForceRelease(c.env, {
      key: form.key,
      reason: form.reason,
      actor: c.get("actor"),
    });
    const param = outcome.released ? "released" : "refused";
    return c.redirect(`/dashboard?${param}=${encodeURIComponent(form.key)}`, 303);
  })
  .openapi(holdRoute, async (c) => {
    const form = c.req.valid("form");
    await assertDashboardPost(c, form.csrf);
    if (lockKind(form.key) === null) throw new SponsonError("NOT_FOUND", "that is not a lock key");
    const ttlSeconds = form.ttlMinutes * 60;
    await auditedHold(c.env, { key: form.key, reason: form.reason, ttlSeconds, actor: c.get("actor") });
    return c.redirect(`/dashboard?held=${encodeURIComponent(form.key)}`, 303);
  })
  .openapi(unholdRoute, async (c) => {
    const form = c.req.valid("form");
    await assertDashboardPost(c, form.csrf);
    if (lockKind(form.key) === null) throw new SponsonError("NOT_FOUND", "that is not a lock key");
    await auditedUnhold(c.env, { key: form.key, actor: c.get("actor") });
    return c.redirect(`/dashboard?lifted=${encodeURIComponent(form.key)}`, 303);
  });
