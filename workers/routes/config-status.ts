/**
 * The configuration's health, for an admin (docs/deploy.md, "Check the configuration"): the same
 * report as `npx sponson config check`, from the vars and secrets the deployed Worker really has.
 * It answers while the configuration is broken — that is when it is needed — so the config
 * middleware (workers/config/middleware.ts) lets this one path through; it reads no setting.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { configStatusSchema } from "../../shared/schemas/config-status";
import type { AppEnv } from "../app-env";
import { requireRole } from "../auth/route-access";
import { checkConfig } from "../config/config-report";
import { AUTH_CODES, bearerSecurity, problemResponses, withOpenApi } from "../http/openapi-problems";
import { validationHook } from "../http/validation";

export const CONFIG_STATUS_PATH = "/v1/config/status";

const statusRoute = createRoute({
  method: "get",
  path: CONFIG_STATUS_PATH,
  operationId: "configStatus",
  tags: ["config"],
  summary: "Which configuration vars are valid and which connections lack a secret (admin; names only)",
  security: bearerSecurity,
  middleware: [requireRole("admin")] as const,
  responses: {
    200: {
      description: "The configuration report; `valid: false` lists every problem with its path",
      content: { "application/json": { schema: withOpenApi(configStatusSchema, "ConfigStatus") } },
    },
    ...problemResponses(...AUTH_CODES),
  },
});

export const configStatusRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  statusRoute,
  (c) => c.json(checkConfig(c.env as object as Record<string, unknown>, { secretsKnown: true }), 200),
);
