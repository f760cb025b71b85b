/** Held locks (DESIGN §6): listing, one lock from its own object, admin force-release. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { SponsonError, unwrap } from "../../shared/errors";
import { lockKind } from "../../shared/lock-keys";
import { lockStateSchema, releaseOutcomeSchema } from "../../shared/schemas/lock";
import type { AppEnv } from "../app-env";
import { validationHook } from "../http/validation";
import { listHeldLocks } from "../locks/held-locks";
import { lockStub, readLock } from "../locks/lock-target";

const keyParam = z.object({
  key: z
    .string()
    .min(1)
    .max(300)
    .openapi({ param: { name: "key", in: "path" }, example: "scope:preview/pr-1" }),
});

const listRoute = createRoute({
  method: "get",
  path: "/v1/locks",
  responses: {
    200: {
      description: "Every held scope and parent lock",
      content: { "application/json": { schema: z.object({ locks: z.array(lockStateSchema) }) } },
    },
  },
});

const readRoute = createRoute({
  method: "get",
  path: "/v1/locks/{key}",
  request: { params: keyParam },
  responses: {
    200: {
      description: "One lock, read from its own object",
      content: { "application/json": { schema: lockStateSchema } },
    },
  },
});

const forceReleaseBody = z.object({ reason: z.string().trim().min(1).max(500) });

const forceReleaseRoute = createRoute({
  method: "delete",
  path: "/v1/locks/{key}",
  request: {
    params: keyParam,
    body: { content: { "application/json": { schema: forceReleaseBody } }, required: true },
  },
  responses: {
    200: {
      description: "The lock was force-released (or was not held)",
      content: { "application/json": { schema: releaseOutcomeSchema.extend({ lock: lockStateSchema }) } },
    },
  },
});

function knownKey(key: string): string {
  if (lockKind(key) === null) {
    throw new SponsonError(
      "NOT_FOUND",
      `"${key}" is not a lock key (scope:<environment>/<scope> or _locks/<hash>)`,
    );
  }
  return key;
}

export const lockRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(listRoute, async (c) => c.json({ locks: await listHeldLocks(c.env) }, 200))
  .openapi(readRoute, async (c) => {
    const key = knownKey(c.req.valid("param").key);
    return c.json(await readLock(c.env, key), 200);
  })
  .openapi(forceReleaseRoute, async (c) => {
    const key = knownKey(c.req.valid("param").key);
    const { reason } = c.req.valid("json");
    const outcome = unwrap(await lockStub(c.env, key).forceRelease({ key, reason, actor: c.get("actor") }));
    return c.json({ ...outcome, lock: await readLock(c.env, key) }, 200);
  });
