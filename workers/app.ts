import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { SponsonError } from "../shared/errors";
import type { AppEnv } from "./app-env";
import { type AuthOptions, authenticate } from "./auth/authenticate";
import { routeAccess } from "./auth/route-access";
import { testHookRoutes } from "./dashboard/test-hooks";
import { createEngine, type EngineOverrides } from "./engine/wire";
import { notFound, onError } from "./http/problem";
import { validationHook } from "./http/validation";
import { loadPolicy } from "./policy/middleware";
import { dashboardRoutes } from "./routes/dashboard";
import { emulatorRoutes } from "./routes/emulators";
import { healthRoutes } from "./routes/health";
import { lockRoutes } from "./routes/locks";
import { mountOpenApi } from "./routes/openapi";
import { scopeRoutes } from "./routes/scopes";
import { githubWebhookRoutes } from "./webhooks/github-webhook";

/** Request bodies above this are refused before they are parsed (DESIGN §6: 413). */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface AppOptions {
  /** Test-only engine overrides (e.g. the no-parent-locks control case); never set by config. */
  engine?: EngineOverrides;
  /** Test-only: the GitHub key source or its fetch, and the clock tokens are checked against. */
  auth?: AuthOptions;
  /** Local browser tests only: the lock hooks of workers/dashboard/test-hooks.ts (workers/index.ts). */
  testHooks?: boolean;
}

export function createApp(options: AppOptions = {}) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.onError(onError);
  app.notFound(notFound);
  // DESIGN §7: authenticate (sets caller and actor), load the write policy, then the route table
  // (roles, and authorizeScope for scope actions). Public: /healthz and the webhook receiver.
  app.use("*", authenticate(options.auth), loadPolicy(), routeAccess());
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
    scopeRoutes((env) => createEngine(env, options.engine)),
  );
  app.route("/", githubWebhookRoutes);
  app.route("/", emulatorRoutes);
  app.route("/", dashboardRoutes);
  if (options.testHooks) app.route("/", testHookRoutes);
  mountOpenApi(app);
  return app;
}
