/**
 * Orphans (admin): entries on owned objects that no scope owns and that are not foreign, and their
 * removal with a recorded reason. Listing reads the providers with the service's credentials, so
 * it is an admin route like the removal.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { orphanListSchema, orphanRemovalBodySchema, orphanRemovalSchema } from "../../shared/schemas/orphans";
import type { AppEnv } from "../app-env";
import { requireRole } from "../auth/route-access";
import type { Engine } from "../engine/engine";
import {
  AUTH_CODES,
  BODY_CODES,
  bearerSecurity,
  problemResponses,
  withOpenApi,
} from "../http/openapi-problems";
import { validationHook } from "../http/validation";

const listRoute = createRoute({
  method: "get",
  path: "/v1/orphans",
  operationId: "listOrphans",
  tags: ["ownership"],
  // The route table already requires admin (workers/auth/route-access.ts); this is the second lock.
  middleware: [requireRole("admin")] as const,
  summary: "Entries no scope owns and that were not there before the service first looked (admin)",
  security: bearerSecurity,
  responses: {
    200: {
      description: "Orphans on every owned object, and objects that could not be read",
      content: { "application/json": { schema: withOpenApi(orphanListSchema, "OrphanList") } },
    },
    ...problemResponses(...AUTH_CODES),
  },
});

const removeRoute = createRoute({
  method: "post",
  path: "/v1/orphans/remove",
  operationId: "removeOrphan",
  tags: ["ownership"],
  middleware: [requireRole("admin")] as const,
  summary: "Remove one orphan (admin), with a reason kept in the audit trail",
  security: bearerSecurity,
  request: {
    body: {
      content: { "application/json": { schema: withOpenApi(orphanRemovalBodySchema, "OrphanRemovalBody") } },
      required: true,
    },
  },
  responses: {
    200: {
      description: "Removed (or already gone); the record kept in the audit trail",
      content: { "application/json": { schema: withOpenApi(orphanRemovalSchema, "OrphanRemoval") } },
    },
    ...problemResponses(
      ...BODY_CODES,
      "NOT_FOUND",
      "LOCK_HELD",
      "CONCURRENT_MODIFICATION",
      "AUDIT_UNAVAILABLE",
      ...AUTH_CODES,
    ),
  },
});

export function orphanRoutes(engineFor: (env: AppEnv["Bindings"]) => Engine) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(listRoute, async (c) => c.json(await engineFor(c.env).orphans(), 200))
    .openapi(removeRoute, async (c) => {
      const body = c.req.valid("json");
      return c.json(await engineFor(c.env).removeOrphan({ ...body, actor: c.get("actor") }), 200);
    });
}
