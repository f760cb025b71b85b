/**
 * Puts a notification on the notifications queue (docs/operations.md, "Notifications"). Telling
 * must never break the work that found something: a misconfiguration, an unbound queue or a failed
 * send is logged and the caller goes on.
 */
import type { Env } from "../../shared/env";
import type { Notification } from "./notification";
import { kindEnabled, notifyConfigFromEnv } from "./notify-config";

export type NotifyOutcome = "queued" | "off" | "unbound" | "failed";

export async function notify(env: Env, notification: Notification): Promise<NotifyOutcome> {
  try {
    if (!kindEnabled(notifyConfigFromEnv(env), notification.kind)) return "off";
    if (!env.NOTIFY_QUEUE) {
      console.warn(
        JSON.stringify({ event: "notification-unsent", reason: "NOTIFY_QUEUE is not bound", notification }),
      );
      return "unbound";
    }
    await env.NOTIFY_QUEUE.send(notification, { contentType: "json" });
    return "queued";
  } catch (err) {
    // The config reader names the var in its message; nothing here holds a secret's value.
    const error = err instanceof Error ? err.message : String(err);
    console.error(JSON.stringify({ event: "notification-failed", id: notification.id, error }));
    return "failed";
  }
}
