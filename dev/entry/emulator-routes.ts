/**
 * Dev entry only (`npm start` and tests): what an emulated provider host holds, so a new user can
 * see both scopes' entries side by side on the demo tenant. Credentials the emulator keeps (M2M
 * secrets, issued tokens) are never shown. The production entry does not mount it: 404 there.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../workers/app-env";
import { AUTH_CODES, bearerSecurity, problemResponses } from "../../workers/http/openapi-problems";
import { validationHook } from "../../workers/http/validation";
import { devEnv } from "./dev-env";

const CREDENTIAL_KEY = /^(m2m|token|secret|key|credential|sa|serviceaccount)[:/]/i;

const emulatorRoute = createRoute({
  method: "get",
  path: "/v1/emulators/{host}",
  operationId: "getEmulatorState",
  tags: ["emulators"],
  summary: "Dev entry only: the state of an emulated provider host (credentials left out)",
  security: bearerSecurity,
  request: {
    params: z.object({ host: z.string().regex(/^[a-z0-9.-]{1,253}$/i) }),
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

export const emulatorRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  emulatorRoute,
  async (c) => {
    const { host } = c.req.valid("param");
    const emulators = devEnv(c.env).PROVIDER_EMULATOR;
    const dump = await emulators.get(emulators.idFromName(host)).dump("");
    const state = Object.fromEntries(Object.entries(dump).filter(([k]) => !CREDENTIAL_KEY.test(k)));
    return c.json({ host, state }, 200);
  },
);
