/**
 * The dashboard (docs/operations.md, "The dashboard"): the server-rendered page, the live fragment the page
 * re-fetches and the lock feed socket; its sign-in and sign-out (./dashboard-sign-in.ts) and admin
 * lock forms (./dashboard-lock-forms.ts) are mounted with it. Roles come from the route table
 * (workers/auth/route-access.ts): sign-in and sign-out are public, reads need viewer, the release
 * and hold POSTs need admin. The page words the notices the forms' flashes carry
 * (workers/auth/dashboard-flash.ts): only the lock key comes from the flash, nothing from the query.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { SponsonError } from "../../shared/errors";
import { LOCK_FEED_NAME } from "../../shared/rpc/lock-feed";
import type { AppEnv } from "../app-env";
import { listAudit } from "../audit/audit-trail";
import { roleAtLeast } from "../auth/caller";
import { type Flash, takeFlash } from "../auth/dashboard-flash";
import { csrfToken, dashboardSessionToken } from "../auth/dashboard-session";
import { assertFeedOrigin } from "../auth/feed-origin";
import { readBinding } from "../auth/read-binding";
import { unauthenticated } from "../auth/verify-token";
import { configFromEnv } from "../config/config";
import { checkConfig } from "../config/config-report";
import { AUDIT_SHOWN } from "../dashboard/audit-trail";
import { pageHeaders } from "../dashboard/page-headers";
import { renderDashboard, renderLive } from "../dashboard/render";
import { loadSnapshot } from "../dashboard/snapshot";
import { type ViewQuery, viewFilter } from "../dashboard/view-filter";
import { AUTH_CODES, bearerSecurity, problemResponses } from "../http/openapi-problems";
import { validationHook } from "../http/validation";
import { adminFormCsrf } from "./admin-forms";
import { feedRefusal, feedSocketFor } from "./dashboard-feed-socket";
import { dashboardLockFormRoutes } from "./dashboard-lock-forms";
import { html, redirect } from "./dashboard-openapi";
import { dashboardSignInRoutes } from "./dashboard-sign-in";

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
  // The notice after a form comes from a flash cookie, never the query (./dashboard-flash-redirect.ts).
  request: { query: z.object(VIEW_QUERY) },
  responses: {
    200: { description: "The page (a session cookie or a bearer token)", content: html },
    303: redirect("No session: to the sign-in form"),
    ...problemResponses("RATE_LIMITED", ...AUTH_CODES),
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
    ...problemResponses("RATE_LIMITED", ...AUTH_CODES),
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
    ...problemResponses(...AUTH_CODES, "VALIDATION", "RATE_LIMITED"),
  },
});

/** The session token of this request (the cookie); undefined when a tool calls with a bearer token. */
function sessionOf(c: Context<AppEnv>): string | undefined {
  return dashboardSessionToken(c);
}

/** The page's own wording of what a form did; only the lock key comes from the flash. */
function noticeOf(flash: Flash): { kind: "ok" | "bad"; text: string } {
  switch (flash.kind) {
    case "released":
      return { kind: "ok", text: `Force-released ${flash.key}.` };
    case "refused":
      return { kind: "bad", text: `${flash.key} was not held; nothing was released.` };
    case "held":
      return { kind: "ok", text: `Held ${flash.key}.` };
    case "lifted":
      return { kind: "ok", text: `Lifted the hold on ${flash.key}.` };
  }
}

// Mounted in the order the routes were always registered, which the OpenAPI document follows.
export const dashboardRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(pageRoute, async (c) => {
    const nonce = pageHeaders(c);
    const caller = c.get("caller");
    const session = sessionOf(c);
    const filter = viewOf(c, c.req.valid("query"));
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
    const flash = await takeFlash(c, session, Date.now());
    const notice = flash === null ? undefined : noticeOf(flash);
    return c.html(
      renderDashboard({
        nonce,
        subject: caller.subject,
        role: caller.role,
        csrf: session === undefined ? "" : await csrfToken(session),
        snapshot,
        choices,
        releaseCsrf: await adminFormCsrf(c),
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
    return c.html(renderLive({ snapshot, releaseCsrf: await adminFormCsrf(c) }), 200);
  })
  .openapi(feedRoute, async (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new SponsonError("VALIDATION", "GET /dashboard/feed expects a WebSocket upgrade");
    }
    // Cross-site WebSocket hijacking: a browser's socket must come from our own pages.
    assertFeedOrigin(c, configFromEnv(c.env).publicUrl);
    // Inside the verifier's clock tolerance a token may be past its `exp`: a socket would only be
    // closed at once (and the page reload into the same), so it is refused before the upgrade.
    if (c.get("credentialExpiresAt") <= Date.now()) throw unauthenticated("expired", "the token has expired");
    const ns = c.env.LOCK_FEED;
    if (ns === undefined) throw new SponsonError("INTERNAL", "the lock feed is not bound");
    // A fresh request: the browser's cookie and headers stay here and never reach the object; only
    // the socket's record does (durable-objects/feed-sockets.ts). A repository-bound viewer's
    // socket hears only of its repository's scope locks (and parent locks).
    const socket = feedSocketFor(c.get("caller"), c.get("credentialExpiresAt"), readBinding(c)?.id);
    const connect = `https://lock-feed.internal/connect?socket=${encodeURIComponent(JSON.stringify(socket))}`;
    const upgrade = new Request(connect, { headers: { upgrade: "websocket" } });
    const res = await ns.get(ns.idFromName(LOCK_FEED_NAME)).fetch(upgrade);
    if (res.status === 429) throw feedRefusal(await res.text());
    return res;
  })
  .route("/", dashboardSignInRoutes)
  .route("/", dashboardLockFormRoutes);
