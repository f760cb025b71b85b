/** Loads the write policy for each request, so a misconfigured Worker refuses instead of guessing. */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { isPublicRoute } from "../auth/route-access";
import { policyFromEnv } from "./policy-schema";

export function loadPolicy() {
  return createMiddleware<AppEnv>(async function loadPolicy(c, next) {
    // Liveness and the webhook receiver write nothing through the policy; they keep working.
    if (!isPublicRoute(c.req.method, new URL(c.req.url).pathname)) {
      // Throws INTERNAL "policy misconfigured"; onError answers problem+json 500.
      c.set("policy", policyFromEnv(c.env));
    }
    await next();
  });
}
