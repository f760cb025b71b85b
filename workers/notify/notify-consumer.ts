/**
 * Consumer of the notifications queue and of its dead-letter queue (docs/operations.md,
 * "Notifications"). Each message goes to every configured target; any target failing retries the
 * message with the destroy queue's backoff (delivery is at least once: `id` lets a receiver drop a
 * repeat). Exhausted retries land on the notifications' own dead-letter queue, whose consumer logs
 * the notification (Workers Logs keep it) and acks: a notification about a notification would loop.
 */
import type { Env } from "../../shared/env";
import { retryDelaySeconds } from "../queue/retry-backoff";
import { type NotificationSender, outboundRequests, type TargetName, unconfiguredRequest } from "./deliver";
import { notificationSchema } from "./notification";
import { notifyConfigFromEnv } from "./notify-config";

export type NotifyReport =
  | { messageId: string; status: "delivered"; id: string; targets: TargetName[] }
  | { messageId: string; status: "retry"; id: string; delaySeconds: number; error: string }
  | { messageId: string; status: "malformed" };

export async function consumeNotifications(
  batch: MessageBatch<unknown>,
  env: Env,
  send: NotificationSender,
): Promise<NotifyReport[]> {
  return Promise.all(batch.messages.map((message) => deliverOne(message, env, send)));
}

async function deliverOne(
  message: Message<unknown>,
  env: Env,
  send: NotificationSender,
): Promise<NotifyReport> {
  const parsed = notificationSchema.safeParse(message.body);
  if (!parsed.success) {
    console.error(JSON.stringify({ event: "notification-malformed", messageId: message.id }));
    message.ack();
    return { messageId: message.id, status: "malformed" };
  }
  const n = parsed.data;
  try {
    const configured = await outboundRequests(env, notifyConfigFromEnv(env), n);
    const requests = configured.length === 0 && send.records ? [unconfiguredRequest(n)] : configured;
    for (const request of requests) {
      // A network error's text could hold the URL, and a Slack URL is a credential: name the target.
      const response = await send(env, request).catch(() => {
        throw new Error(`${request.target} unreachable`);
      });
      await response.body?.cancel();
      // Only the target's name and status: a Slack URL is a credential.
      if (!response.ok) throw new Error(`${request.target} answered ${response.status}`);
    }
    message.ack();
    const targets = requests.map((r) => r.target);
    // With no target configured the log line is the notification (Workers Logs, docs/operations.md).
    console.log(JSON.stringify({ event: "notification", targets, notification: n }));
    return { messageId: message.id, status: "delivered", id: n.id, targets };
  } catch (err) {
    const delaySeconds = retryDelaySeconds(message.attempts);
    message.retry({ delaySeconds });
    const error = err instanceof Error ? err.message : String(err);
    console.warn(JSON.stringify({ event: "notification-retry", id: n.id, delaySeconds, error }));
    return { messageId: message.id, status: "retry", id: n.id, delaySeconds, error };
  }
}

export function consumeNotificationDeadLetters(batch: MessageBatch<unknown>): string[] {
  const ids: string[] = [];
  for (const message of batch.messages) {
    const parsed = notificationSchema.safeParse(message.body);
    console.error(
      JSON.stringify({
        event: "notification-dead-letter",
        messageId: message.id,
        attempts: message.attempts,
        notification: parsed.success ? parsed.data : null,
      }),
    );
    message.ack();
    ids.push(message.id);
  }
  return ids;
}
