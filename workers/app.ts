import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env";
import { notFound, onError } from "./http/problem";
import { validationHook } from "./http/validation";
import { healthRoutes } from "./routes/health";
import { lockRoutes } from "./routes/locks";

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.onError(onError);
  app.notFound(notFound);
  app.use("*", async (c, next) => {
    // Until authentication lands every caller is anonymous; routes already read the actor.
    c.set("actor", "anonymous");
    await next();
  });
  app.route("/", healthRoutes);
  app.route("/", lockRoutes);
  app.doc31("/v1/openapi.json", {
    openapi: "3.1.0",
    info: { title: "Sponson Edge", version: "1.0.0" },
  });
  return app;
}
