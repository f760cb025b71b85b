/**
 * Refuses every authenticated request while any config var is invalid (500 INTERNAL naming the var),
 * so a misconfigured Worker answers with what to fix instead of running with a guess. Liveness,
 * the OpenAPI document and the webhook receiver are public and read only what they need.
 */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { isPublicRoute } from "../auth/route-access";
import { CONFIG_STATUS_PATH } from "../routes/config-status";
import { assertConfigValid, configFromEnv } from "./config";

export function checkConfig() {
  return createMiddleware<AppEnv>(async function checkConfig(c, next) {
    const path = c.req.path;
    // The configuration report answers what is wrong; it reads no setting itself.
    const reportsConfig = c.req.method === "GET" && path === CONFIG_STATUS_PATH;
    if (!isPublicRoute(c.req.method, path) && !reportsConfig) assertConfigValid(configFromEnv(c.env));
    await next();
  });
}
