/**
 * `POST /v1/admin/upgrade` (admin): runs one upgrade pass now instead of waiting for the sweep's
 * (docs/upgrading.md), answers what it did, and logs it with the admin's actor. Idempotent: a second
 * call finds nothing left to move. Deleted in 0.4.0 with the rest of workers/upgrade/.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import { requireRole } from "../auth/route-access";
import { AUTH_CODES, bearerSecurity, problemResponses, withOpenApi } from "../http/openapi-problems";
import { validationHook } from "../http/validation";
import { runUpgrade } from "./upgrade";
import { upgradeDeps } from "./upgrade-deps";
import { upgradeReportSchema } from "./upgrade-report";

const upgradeRoute = createRoute({
  method: "post",
  path: "/v1/admin/upgrade",
  operationId: "runUpgrade",
  tags: ["admin"],
  // The route table already requires admin (a write not in it: fail closed); this is the second lock.
  middleware: [requireRole("admin")] as const,
  summary:
    "Move what versions before 0.2.0 wrote in layouts no run reads, now (admin; the sweep does it too)",
  security: bearerSecurity,
  responses: {
    200: {
      description: "What this pass moved, and what it left and why",
      content: { "application/json": { schema: withOpenApi(upgradeReportSchema, "UpgradeReport") } },
    },
    ...problemResponses(...AUTH_CODES),
  },
});

export const upgradeRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  upgradeRoute,
  async (c) => {
    const report = await runUpgrade(upgradeDeps(c.env));
    console.log(JSON.stringify({ event: "upgrade", actor: c.get("actor"), report }));
    return c.json(report, 200);
  },
);
