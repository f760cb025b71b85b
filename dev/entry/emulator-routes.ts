/**
 * Dev entry only (`npm start` and tests): what an emulated provider host holds, so a new user can
 * see both scopes' entries side by side on the demo tenant. Credentials the emulator keeps (M2M
 * secrets, issued tokens) are never shown. And seeding: state written as those keys show it, e.g. a
 * list that already held entries before the service (docs/deploy.md, "Day one: existing entries");
 * a POST, so admin only (workers/auth/route-access.ts). The production entry mounts neither: 404.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../workers/app-env";
import { AUTH_CODES, bearerSecurity, problemResponses } from "../../workers/http/openapi-problems";
import { validationHook } from "../../workers/http/validation";
import { devEnv } from "./dev-env";

const HOST = z.string().regex(/^[a-z0-9.-]{1,253}$/i);
/** Keys one seed may write: storage keys as each emulator's state.ts lists them (`client:<id>`). */
const MAX_SEED_KEYS = 1_000;
const CREDENTIAL_KEY = /^(m2m|token|secret|key|credential|sa|serviceaccount)[:/]/i;

const emulatorRoute = createRoute({
  method: "get",
  path: "/v1/emulators/{host}",
  operationId: "getEmulatorState",
  tags: ["emulators"],
  summary: "Dev entry only: the state of an emulated provider host (credentials left out)",
  security: bearerSecurity,
  request: {
    params: z.object({ host: HOST }),
  },
  responses: {
    200: {
      description: "The emulated objects of that host, by storage key",
      content: {
        "application/json": {
          schema: z.object({ host: z.string(), state: z.record(z.string(), z.unknown()) }),
        },
      },
    },
    ...problemResponses("VALIDATION", ...AUTH_CODES),
  },
});

const seedRoute = createRoute({
  method: "post",
  path: "/v1/emulators/{host}/seed",
  operationId: "seedEmulatorState",
  tags: ["emulators"],
  summary: "Dev entry only: write keys into an emulated provider host's state (admin)",
  security: bearerSecurity,
  request: {
    params: z.object({ host: HOST }),
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .record(z.string().min(1).max(512), z.unknown())
            .refine((o) => Object.keys(o).length <= MAX_SEED_KEYS, `at most ${MAX_SEED_KEYS} keys`),
        },
      },
    },
  },
  responses: {
    200: {
      description: "The keys written, each replacing what it held",
      content: { "application/json": { schema: z.object({ host: z.string(), keys: z.array(z.string()) }) } },
    },
    ...problemResponses("VALIDATION", ...AUTH_CODES),
  },
});

/** The emulator object named by the host: the state both routes read and write. */
function emulatorOf(env: AppEnv["Bindings"], host: string) {
  const emulators = devEnv(env).PROVIDER_EMULATOR;
  return emulators.get(emulators.idFromName(host));
}

export const emulatorRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(emulatorRoute, async (c) => {
    const { host } = c.req.valid("param");
    const dump = await emulatorOf(c.env, host).dump("");
    const state = Object.fromEntries(Object.entries(dump).filter(([k]) => !CREDENTIAL_KEY.test(k)));
    return c.json({ host, state }, 200);
  })
  .openapi(seedRoute, async (c) => {
    const { host } = c.req.valid("param");
    const entries = c.req.valid("json");
    await emulatorOf(c.env, host).seed(entries);
    return c.json({ host, keys: Object.keys(entries) }, 200);
  });
