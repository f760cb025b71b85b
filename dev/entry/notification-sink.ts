/**
 * Dev entry only: notifications are recorded at the local sink (dev/emulators/notification-sink/),
 * never posted to Slack or a webhook. Every configured target's request goes to the sink, with
 * which target it was for; when nothing is configured, the sink still records the notification as
 * target `none`, so `npm start` shows what an operator would be told.
 */
import type { Env } from "../../shared/env";
import type { NotificationSender, OutboundNotification } from "../../workers/notify/deliver";
import { NOTIFICATION_SINK_HOST } from "../emulators/notification-sink";
import { providerFetch } from "../emulators/transport";
import { devEnv } from "./dev-env";

export const SINK_URL = `https://${NOTIFICATION_SINK_HOST}/record`;

export const sinkSender: NotificationSender = Object.assign(
  (env: Env, { target, url, init }: OutboundNotification) => {
    const headers: Record<string, string> = { ...init.headers, "x-sink-target": target };
    if (target === "webhook") headers["x-sink-url"] = url;
    return providerFetch(devEnv(env))(SINK_URL, { method: "POST", headers, body: init.body });
  },
  { records: true as const },
);
