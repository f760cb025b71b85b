import { OpenAPIHono } from "@hono/zod-openapi";
import { systemClock } from "../shared/clock";
import type { AppEnv } from "./app-env";
import { type AuthOptions, authenticate } from "./auth/authenticate";
import { routeAccess } from "./auth/route-access";
import { checkConfig } from "./config/middleware";
import { bodyLimits } from "./http/body-limits";
import { canonicalPath } from "./http/canonical-path";
import { notFound, onError, problemResponse } from "./http/problem";
import { rateLimit } from "./http/rate-limit";
import { markArrival } from "./http/server-timing";
import { validationHook } from "./http/validation";
import { platformWebhookRoutes } from "./platforms/platform-routes";
import { adoptionRoutes } from "./routes/adoption";
import { auditRoutes } from "./routes/audit";
import { configStatusRoutes } from "./routes/config-status";
import { dashboardRoutes } from "./routes/dashboard";
import { dashboardPageRoutes } from "./routes/dashboard-pages";
import { healthRoutes } from "./routes/health";
import { lockRoutes } from "./routes/locks";
import { mountOpenApi } from "./routes/openapi";
import { orphanRoutes } from "./routes/orphans";
import { revokedTokenRoutes } from "./routes/revoked-tokens";
import { scopeRoutes } from "./routes/scopes";
import { tokenRoutes } from "./routes/tokens";
import { wellKnownRoutes } from "./routes/well-known";
import { upgradeRoutes } from "./upgrade/upgrade-route";
import { githubWebhookRoutes } from "./webhooks/github-webhook";
import { createEngine, type EngineOverrides, type ProviderTransport } from "./wiring/wire";

/**
 * Request bodies above this are refused before they are parsed (413 PAYLOAD_TOO_LARGE, docs/design.md,
 * "Errors"); the dashboard's forms have a smaller limit (workers/http/body-limits.ts).
 */
export { MAX_BODY_BYTES } from "./http/body-limits";

export interface AppOptions {
  /** Where the engine's provider HTTP goes: chosen by the entry (workers/index.ts, dev/entry/). */
  transport: ProviderTransport;
  /** Test-only engine overrides (e.g. the no-parent-locks control case); never set by config. */
  engine?: EngineOverrides;
  /** Test-only: the GitHub key source or its fetch, and the clock tokens are checked against. */
  auth?: AuthOptions;
}

export type App = ReturnType<typeof createApp>;

export function createApp(options: AppOptions) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.onError(onError);
  app.notFound(notFound);
  // docs/design.md, "Security model": authenticate (sets caller and actor), refuse a misconfigured Worker,
  // then the route table (roles, and authorizeScope for scope actions). Public: /healthz and the webhook
  // receiver.
  // Arrival first: a run's timings count authentication as part of its authorization time.
  app.use("*", markArrival(), authenticate(options.auth), checkConfig(), routeAccess());
  // Runs and previews per caller, once authorized (workers/http/rate-limit.ts).
  app.use("*", rateLimit(options.transport));
  app.route("/", healthRoutes);
  app.route("/", wellKnownRoutes);
  // Every route that reads a body, the dashboard's forms included (workers/http/body-limits.ts).
  app.use("*", bodyLimits());
  app.route("/", lockRoutes);
  app.route(
    "/",
    scopeRoutes((env) => createEngine(env, options.transport, options.engine)),
  );
  app.route(
    "/",
    orphanRoutes((env) => createEngine(env, options.transport, options.engine)),
  );
  app.route(
    "/",
    adoptionRoutes((env) => createEngine(env, options.transport, options.engine)),
  );
  app.route("/", configStatusRoutes);
  app.route("/", tokenRoutes);
  app.route("/", revokedTokenRoutes);
  // Upgrading only (docs/upgrading.md): deleted in 0.4.0 with workers/upgrade/.
  app.route("/", upgradeRoutes);
  // The stream's settle window is measured on the engine's clock, which tests move.
  app.route(
    "/",
    auditRoutes(() => (options.engine?.clock ?? systemClock).now()),
  );
  app.route("/", githubWebhookRoutes);
  app.route(
    "/",
    platformWebhookRoutes(
      (env) => {
        // The door's one outbound request goes where the engine's do (tests observe both the same way).
        const fetcher = options.transport(env);
        return options.engine?.wrapFetch ? options.engine.wrapFetch(fetcher) : fetcher;
      },
      () => (options.engine?.clock ?? systemClock).now(),
    ),
  );
  app.route("/", dashboardRoutes);
  app.route(
    "/",
    dashboardPageRoutes((env) => createEngine(env, options.transport, options.engine)),
  );
  mountOpenApi(app);
  routeCanonicalPaths(app);
  return app;
}

/**
 * The router, authentication and the route table all read the canonical path
 * (workers/http/canonical-path.ts): the request is rewritten to it before Hono sees it, and a path
 * whose encoding is ambiguous is refused here, before any middleware runs.
 */
function routeCanonicalPaths(app: OpenAPIHono<AppEnv>): void {
  const dispatch = app.fetch;
  app.fetch = (request, env, ctx) => {
    const url = new URL(request.url);
    const canonical = canonicalPath(url.pathname);
    if (!canonical.ok) return problemResponse(canonical.error, url.pathname);
    if (canonical.path === url.pathname) return dispatch(request, env, ctx);
    url.pathname = canonical.path;
    return dispatch(new Request(url, request), env, ctx);
  };
}
