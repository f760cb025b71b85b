import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { healthSchema } from "../../shared/schemas/responses";
import type { AppEnv } from "../app-env";
import { publicSecurity } from "../http/openapi-problems";

const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  operationId: "health",
  tags: ["health"],
  summary: "Liveness (public)",
  security: publicSecurity,
  responses: {
    200: {
      description: "The Worker is up",
      content: { "application/json": { schema: healthSchema } },
    },
  },
});

export const healthRoutes = new OpenAPIHono<AppEnv>().openapi(healthRoute, (c) =>
  c.json({ ok: true as const, service: "sponson-edge" }, 200),
);
