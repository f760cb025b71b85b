/**
 * Local-only lock hooks for the browser tests (test/e2e/): hold a lock as a named holder, the way a
 * stuck run would, so a page can be shown two applies queued behind it. Mounted only by the dev
 * entry, when SPONSON_TEST_HOOKS=on (dev/entry/index.ts); the production entry has no such
 * route. Admin-only through the route table like every other POST.
 */
import { Hono } from "hono";
import { z } from "zod";
import { SponsonError, unwrap } from "../../shared/errors";
import { parentLockKey } from "../../shared/lock-keys";
import { SecretRegistry } from "../../shared/secrets";
import type { AppEnv } from "../../workers/app-env";
import { lockTarget } from "../../workers/locks/lock-target";

const holdSchema = z.object({
  /** A parent identity, e.g. `auth0:<tenant>:client:<id>`; its `_locks/<h>` key is derived. */
  identity: z.string().min(1).max(512),
  holder: z.string().min(1).max(200),
  ttlSeconds: z.number().int().min(1).max(3600),
});

export const testHookRoutes = new Hono<AppEnv>().post("/_test/locks/hold", async (c) => {
  const parsed = holdSchema.safeParse(await c.req.json().catch(() => null));
  if (!parsed.success) throw new SponsonError("VALIDATION", "body must be { identity, holder, ttlSeconds }");
  const { identity, holder, ttlSeconds } = parsed.data;
  const key = await parentLockKey(identity, new SecretRegistry());
  const grant = unwrap(
    await lockTarget(c.env, key, identity).acquire({
      holder,
      ttlMs: ttlSeconds * 1000,
      wait: false,
      waitTimeoutMs: 0,
    }),
  );
  return c.json(grant, 200);
});
