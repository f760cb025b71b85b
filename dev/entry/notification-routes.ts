/**
 * Dev entry only (`npm start` and tests): `GET /v1/emulators/notifications`, what the local sink
 * recorded in place of Slack and webhook deliveries (./notification-sink.ts), oldest first. The
 * production entry does not mount it.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../workers/app-env";
import { AUTH_CODES, bearerSecurity, problemResponses } from "../../workers/http/openapi-problems";
import { validationHook } from "../../workers/http/validation";
import { NOTIFICATION_SINK_HOST, SINK_KEY_PREFIX } from "../emulators/notification-sink";
import { devEnv } from "./dev-env";

const notificationsRoute = createRoute({
  method: "get",
  path: "/v1/emulators/notifications",
  operationId: "getRecordedNotifications",
  tags: ["emulators"],
  summary: "Dev entry only: the notifications the local sink recorded instead of sending them",
  security: bearerSecurity,
  responses: {
    200: {
      description: "Recorded deliveries, oldest first",
      content: {
        "application/json": {
          schema: z.object({
            notifications: z.array(
              z.object({
                target: z.string(),
                url: z.string().optional(),
                signature: z.string().optional(),
                body: z.unknown(),
                receivedAt: z.number(),
              }),
            ),
          }),
        },
      },
    },
    ...problemResponses(...AUTH_CODES),
  },
});

export const notificationRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  notificationsRoute,
  async (c) => {
    const emulators = devEnv(c.env).PROVIDER_EMULATOR;
    const dump = await emulators.get(emulators.idFromName(NOTIFICATION_SINK_HOST)).dump(SINK_KEY_PREFIX);
    const notifications = Object.keys(dump)
      .sort()
      .map((key) => dump[key] as { target: string; body: unknown; receivedAt: number });
    return c.json({ notifications }, 200);
  },
);
