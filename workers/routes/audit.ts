/** The admin audit trail (admin): force-releases and orphan removals, newest first. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import { AUDIT_LISTED_MAX, auditEntrySchema, listAudit } from "../audit/audit-trail";
import { requireRole } from "../auth/route-access";
import { AUTH_CODES, bearerSecurity, problemResponses, withOpenApi } from "../http/openapi-problems";
import { validationHook } from "../http/validation";

const listRoute = createRoute({
  method: "get",
  path: "/v1/audit",
  operationId: "listAudit",
  tags: ["audit"],
  summary: "Force-releases and orphan removals: who, why, what (admin)",
  security: bearerSecurity,
  // The route table already requires admin (workers/auth/route-access.ts); this is the second lock.
  middleware: [requireRole("admin")] as const,
  request: {
    query: z.object({ limit: z.coerce.number().int().min(1).max(AUDIT_LISTED_MAX).optional() }),
  },
  responses: {
    200: {
      description: "Audit records, newest first",
      content: {
        "application/json": {
          schema: z.object({ entries: z.array(withOpenApi(auditEntrySchema, "AuditEntry")) }),
        },
      },
    },
    ...problemResponses("VALIDATION", ...AUTH_CODES),
  },
});

export const auditRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  listRoute,
  async (c) => c.json({ entries: await listAudit(c.env, c.req.valid("query").limit) }, 200),
);
