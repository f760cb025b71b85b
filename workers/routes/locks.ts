/**
 * Held locks (docs/api.md, "Routes"): listing, one lock from its own object, admin force-release and
 * holds.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { SponsonError } from "../../shared/errors";
import { LOCK_NAME_FORMS, resolveLockName } from "../../shared/lock-keys";
import { holdBodySchema } from "../../shared/schemas/hold";
import { type LockView, lockStateSchema } from "../../shared/schemas/lock";
import {
  forceReleaseBodySchema,
  forceReleaseResultSchema,
  holdResultSchema,
  lockListSchema,
} from "../../shared/schemas/responses";
import type { AppEnv } from "../app-env";
import { readBinding } from "../auth/read-binding";
import { requireRole } from "../auth/route-access";
import { configFromEnv } from "../config/config";
import {
  AUTH_CODES,
  BODY_CODES,
  bearerSecurity,
  problemResponses,
  withOpenApi,
} from "../http/openapi-problems";
import { validationHook } from "../http/validation";
import { listHeldLocks } from "../lock-views/held-locks";
import { withRepositoryNames } from "../lock-views/repository-view";
import { heldLocksFor, lockSeenBy } from "../lock-views/visible-locks";
import { auditedForceRelease } from "../locks/force-release";
import { auditedHold, auditedUnhold } from "../locks/hold";
import { readLock } from "../locks/lock-target";

const keyParam = z.object({
  key: z
    .string()
    .min(1)
    .max(520)
    .openapi({
      param: { name: "key", in: "path" },
      description:
        "The lock's key (`scope:<repository id>/<environment>/<scope>` or `_locks/<hash>`), or a provider " +
        "object's identity (`auth0:<tenant>:client:<client id>`), which names its parent lock",
      example: "scope:186853002/preview/pr-1",
    }),
});

const lockState = withOpenApi(lockStateSchema, "LockState");

const listRoute = createRoute({
  method: "get",
  path: "/v1/locks",
  operationId: "listLocks",
  tags: ["locks"],
  summary: "Held locks (scope and parent): key, kind, identity, holder, since, expiresAt, waiters",
  security: bearerSecurity,
  responses: {
    200: {
      description: "Every held scope and parent lock",
      content: { "application/json": { schema: withOpenApi(lockListSchema, "LockList") } },
    },
    // RATE_LIMITED: the caller's read budget (workers/http/rate-limit.ts).
    ...problemResponses("RATE_LIMITED", ...AUTH_CODES),
  },
});

const readRoute = createRoute({
  method: "get",
  path: "/v1/locks/{key}",
  operationId: "getLock",
  tags: ["locks"],
  summary: "One lock, read from its own object (authoritative)",
  security: bearerSecurity,
  request: { params: keyParam },
  responses: {
    200: {
      description: "One lock, read from its own object",
      content: { "application/json": { schema: lockState } },
    },
    ...problemResponses("VALIDATION", "NOT_FOUND", "RATE_LIMITED", ...AUTH_CODES),
  },
});

const forceReleaseBody = withOpenApi(forceReleaseBodySchema, "ForceReleaseBody");

const forceReleaseRoute = createRoute({
  method: "delete",
  path: "/v1/locks/{key}",
  operationId: "forceReleaseLock",
  tags: ["locks"],
  // The route table already requires admin (workers/auth/route-access.ts); this is the second lock.
  middleware: [requireRole("admin")] as const,
  summary: "Force-release a lock (admin), with a reason for the audit history",
  security: bearerSecurity,
  request: {
    params: keyParam,
    body: { content: { "application/json": { schema: forceReleaseBody } }, required: true },
  },
  responses: {
    200: {
      description: "The lock was force-released (or was not held)",
      content: {
        "application/json": { schema: withOpenApi(forceReleaseResultSchema, "ForceReleaseResult") },
      },
    },
    ...problemResponses(...BODY_CODES, "NOT_FOUND", "AUDIT_UNAVAILABLE", ...AUTH_CODES),
  },
});

const holdResult = withOpenApi(holdResultSchema, "HoldResult");

// Holds (docs/design.md, "Lease protocol: holds"). The route table already requires admin
// (workers/auth/route-access.ts); `requireRole` on each is the second lock.
const holdSetRoute = createRoute({
  method: "post",
  path: "/v1/locks/{key}/hold",
  operationId: "holdLock",
  tags: ["locks"],
  middleware: [requireRole("admin")] as const,
  summary:
    "Hold a lock (admin): runs that need it are refused LOCK_HELD until it ends; the lease held now goes on",
  security: bearerSecurity,
  request: {
    params: keyParam,
    body: {
      content: { "application/json": { schema: withOpenApi(holdBodySchema, "HoldBody") } },
      required: true,
    },
  },
  responses: {
    200: {
      description: "The hold now in force, and the one it replaced (null: none)",
      content: { "application/json": { schema: holdResult } },
    },
    ...problemResponses(...BODY_CODES, "NOT_FOUND", ...AUTH_CODES),
  },
});

const holdLiftRoute = createRoute({
  method: "delete",
  path: "/v1/locks/{key}/hold",
  operationId: "unholdLock",
  tags: ["locks"],
  middleware: [requireRole("admin")] as const,
  summary: "Lift a lock's hold (admin); its first waiter is granted",
  security: bearerSecurity,
  request: { params: keyParam },
  responses: {
    200: {
      description: "The hold lifted (`previous`; null: none was in force)",
      content: { "application/json": { schema: holdResult } },
    },
    ...problemResponses("VALIDATION", "NOT_FOUND", ...AUTH_CODES),
  },
});

/** The key of the lock the path names, by its key or its object's identity (shared/lock-keys.ts). */
export async function knownKey(name: string): Promise<string> {
  const resolved = await resolveLockName(name);
  if (resolved === null) throw new SponsonError("NOT_FOUND", `"${name}" is not ${LOCK_NAME_FORMS}`);
  return resolved.key;
}

export const lockRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(listRoute, async (c) => {
    const held = await listHeldLocks(c.env);
    const bound = readBinding(c);
    const named = (s: LockView) => withRepositoryNames(s, configFromEnv(c.env).repositories);
    return c.json(
      { locks: (bound === null ? held : await heldLocksFor(c.env, held, bound.id)).map(named) },
      200,
    );
  })
  .openapi(readRoute, async (c) => {
    const key = await knownKey(c.req.valid("param").key);
    const bound = readBinding(c);
    const named = (s: LockView) => withRepositoryNames(s, configFromEnv(c.env).repositories);
    if (bound === null) return c.json(named(await readLock(c.env, key)), 200);
    // Another repository's scope lock, or an object this one does not use, is not there for it.
    return c.json(named(await lockSeenBy(c.env, key, bound)), 200);
  })
  .openapi(forceReleaseRoute, async (c) => {
    const key = await knownKey(c.req.valid("param").key);
    const { reason } = c.req.valid("json");
    const { outcome, lock } = await auditedForceRelease(c.env, { key, reason, actor: c.get("actor") });
    return c.json({ ...outcome, lock }, 200);
  })
  .openapi(holdSetRoute, async (c) => {
    const key = await knownKey(c.req.valid("param").key);
    const { reason, ttlSeconds } = c.req.valid("json");
    return c.json(await auditedHold(c.env, { key, reason, ttlSeconds, actor: c.get("actor") }), 200);
  })
  .openapi(holdLiftRoute, async (c) => {
    const key = await knownKey(c.req.valid("param").key);
    return c.json(await auditedUnhold(c.env, { key, actor: c.get("actor") }), 200);
  });
