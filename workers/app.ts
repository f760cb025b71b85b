import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { SponsonError } from "../shared/errors";
import type { AppEnv } from "./app-env";
import { type AuthOptions, authenticate } from "./auth/authenticate";
import { routeAccess } from "./auth/route-access";
import { checkConfig } from "./config/middleware";
import { notFound, onError } from "./http/problem";
import { markArrival } from "./http/server-timing";
import { validationHook } from "./http/validation";
import { configStatusRoutes } from "./routes/config-status";
import { dashboardRoutes } from "./routes/dashboard";
import { dashboardPageRoutes } from "./routes/dashboard-pages";
import { healthRoutes } from "./routes/health";
import { lockRoutes } from "./routes/locks";
import { mountOpenApi } from "./routes/openapi";
import { orphanRoutes } from "./routes/orphans";
import { scopeRoutes } from "./routes/scopes";
import { tokenRoutes } from "./routes/tokens";
import { githubWebhookRoutes } from "./webhooks/github-webhook";
import { createEngine, type EngineOverrides, type ProviderTransport } from "./wiring/wire";

/**
 * Request bodies above this are refused before they are parsed (413 PAYLOAD_TOO_LARGE, docs/design.md,
 * "Errors").
 */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface AppOptions {
  /** Where the engine's provider HTTP goes: chosen by the entry (workers/index.ts, workers/dev/). */
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
  app.route("/", healthRoutes);
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new SponsonError("PAYLOAD_TOO_LARGE", `request body exceeds ${MAX_BODY_BYTES} bytes`);
      },
    }),
  );
  app.route("/", lockRoutes);
  app.route(
    "/",
    scopeRoutes((env) => createEngine(env, options.transport, options.engine)),
  );
  app.route(
    "/",
    orphanRoutes((env) => createEngine(env, options.transport, options.engine)),
  );
  app.route("/", configStatusRoutes);
  app.route("/", tokenRoutes);
  app.route("/", githubWebhookRoutes);
  app.route("/", dashboardRoutes);
  app.route(
    "/",
    dashboardPageRoutes((env) => createEngine(env, options.transport, options.engine)),
  );
  mountOpenApi(app);
  return app;
}
