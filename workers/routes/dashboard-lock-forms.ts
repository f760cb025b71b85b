/**
 * The dashboard's admin lock forms (docs/operations.md, "The dashboard"): force-release, hold and
 * lift a hold. The route table requires admin (workers/auth/route-access.ts) and each route requires
 * it again; every POST passes the same-origin and CSRF checks of workers/auth/dashboard-session.ts.
 * Outcomes are redirects (post/redirect/get), so a reload never repeats an action; the outcome
 * travels in a session-sealed flash (workers/auth/dashboard-flash.ts), never the query string, and
 * the notice's wording is the page's (./dashboard.ts).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { SponsonError } from "../../shared/errors";
import { LOCK_NAME_FORMS, resolveLockName } from "../../shared/lock-keys";
import { holdReasonSchema } from "../../shared/schemas/hold";
import type { AppEnv } from "../app-env";
import { assertDashboardPost } from "../auth/dashboard-session";
import { requireRole } from "../auth/route-access";
import { MAX_HOLD_MINUTES } from "../dashboard/hold-forms";
import { AUTH_CODES, bearerSecurity, problemResponses } from "../http/openapi-problems";
import { validationHook } from "../http/validation";
import { auditedForceRelease } from "../locks/force-release";
import { auditedHold, auditedUnhold } from "../locks/hold";
import { flashRedirect } from "./dashboard-flash-redirect";
import { redirect } from "./dashboard-openapi";

// `csrf` is optional in the schema so that a missing token is a 403 from the CSRF check, not a 400.
const releaseForm = z.object({
  csrf: z.string().max(200).optional(),
  key: z.string().min(1).max(520),
  reason: z.string().trim().min(1).max(500),
  confirm: z.literal("yes"),
});

const releaseRoute = createRoute({
  method: "post",
  path: "/dashboard/locks/release",
  operationId: "dashboardForceRelease",
  tags: ["dashboard"],
  // The route table already requires admin (workers/auth/route-access.ts); this is the second lock.
  middleware: [requireRole("admin")] as const,
  summary: "Admin force-release from the dashboard: a reason and a confirmation (same-origin, CSRF)",
  security: bearerSecurity,
  request: {
    body: { content: { "application/x-www-form-urlencoded": { schema: releaseForm } }, required: true },
  },
  responses: {
    303: redirect("Back to the dashboard, naming the released lock"),
    ...problemResponses(...AUTH_CODES, "VALIDATION", "NOT_FOUND", "AUDIT_UNAVAILABLE"),
  },
});

const holdForm = z.object({
  csrf: z.string().max(200).optional(),
  /** A lock key, or a provider object's identity (its parent lock), as the API takes it. */
  key: z.string().trim().min(1).max(520),
  reason: holdReasonSchema,
  ttlMinutes: z.coerce.number().int().min(1).max(MAX_HOLD_MINUTES),
});

const holdRoute = createRoute({
  method: "post",
  path: "/dashboard/locks/hold",
  operationId: "dashboardHold",
  tags: ["dashboard"],
  // The route table already requires admin (workers/auth/route-access.ts); this is the second lock.
  middleware: [requireRole("admin")] as const,
  summary: "Admin hold from the dashboard: a key, a reason and minutes (same-origin, CSRF)",
  security: bearerSecurity,
  request: {
    body: { content: { "application/x-www-form-urlencoded": { schema: holdForm } }, required: true },
  },
  responses: {
    303: redirect("Back to the dashboard, naming the held lock"),
    ...problemResponses(...AUTH_CODES, "VALIDATION", "NOT_FOUND"),
  },
});

const unholdRoute = createRoute({
  method: "post",
  path: "/dashboard/locks/unhold",
  operationId: "dashboardUnhold",
  tags: ["dashboard"],
  middleware: [requireRole("admin")] as const,
  summary: "Admin lifts a hold from the dashboard (same-origin, CSRF)",
  security: bearerSecurity,
  request: {
    body: {
      content: {
        "application/x-www-form-urlencoded": {
          schema: z.object({ csrf: z.string().max(200).optional(), key: z.string().min(1).max(520) }),
        },
      },
      required: true,
    },
  },
  responses: {
    303: redirect("Back to the dashboard, naming the lock"),
    ...problemResponses(...AUTH_CODES, "VALIDATION", "NOT_FOUND"),
  },
});

/**
 * The lock a form names, by its key or its object's identity, resolved as the API resolves it
 * (shared/lock-keys.ts); `shown` is how the notice names it: as the admin did.
 */
async function formLock(name: string): Promise<{ key: string; shown: string }> {
  const resolved = await resolveLockName(name);
  if (resolved === null) throw new SponsonError("NOT_FOUND", `"${name}" is not ${LOCK_NAME_FORMS}`);
  return { key: resolved.key, shown: resolved.identity ?? resolved.key };
}

export const dashboardLockFormRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(releaseRoute, async (c) => {
    const form = c.req.valid("form");
    await assertDashboardPost(c, form.csrf);
    const { key, shown } = await formLock(form.key);
    const { outcome } = await auditedForceRelease(c.env, { key, reason: form.reason, actor: c.get("actor") });
    return flashRedirect(c, outcome.released ? "released" : "refused", shown);
  })
  .openapi(holdRoute, async (c) => {
    const form = c.req.valid("form");
    await assertDashboardPost(c, form.csrf);
    const { key, shown } = await formLock(form.key);
    const ttlSeconds = form.ttlMinutes * 60;
    await auditedHold(c.env, { key, reason: form.reason, ttlSeconds, actor: c.get("actor") });
    return flashRedirect(c, "held", shown);
  })
  .openapi(unholdRoute, async (c) => {
    const form = c.req.valid("form");
    await assertDashboardPost(c, form.csrf);
    const { key, shown } = await formLock(form.key);
    await auditedUnhold(c.env, { key, actor: c.get("actor") });
    return flashRedirect(c, "lifted", shown);
  });
