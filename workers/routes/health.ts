import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";

const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  responses: {
    200: {
      description: "The Worker is up",
      content: { "application/json": { schema: z.object({ ok: z.literal(true), service: z.string() }) } },
    },
  },
});

export const healthRoutes = new OpenAPIHono<AppEnv>().openapi(healthRoute, (c) =>
  c.json({ ok: true as const, service: "sponson-edge" }, 200),
);
