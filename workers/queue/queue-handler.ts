/**
 * The Worker's `queue()` entry, wired in workers/index.ts. The destroy runner is a parameter so
 * the engine plugs in the real destroy in one place:
 *
 *   queue: createQueueHandler({ runDestroy: engineDestroyRunner })
 */
import type { Env } from "../../shared/env";
import { isPlatformApplyBody } from "../../shared/schemas/queued-platform-apply";
import { type NotificationSender, networkSender } from "../notify/deliver";
import {
  consumeNotificationDeadLetters,
  consumeNotifications,
  type NotifyReport,
} from "../notify/notify-consumer";
import { storeDeadLetters } from "./dead-letters";
import { consumeDestroys, type DestroyReport } from "./destroy-consumer";
import {
  consumePlatformApplies,
  type PlatformApplyReport,
  type PlatformApplyRunner,
} from "./platform-apply-consumer";
import { queueNames } from "./queue-names";
import type { DestroyRunner } from "./queued-destroy";

export interface QueueHandlerDeps {
  /** The engine's destroy (workers/wiring/background.ts); there is no stand-in in production. */
  runDestroy: DestroyRunner;
  /**
   * The engine's platform apply (workers/wiring/platform-apply.ts), on the same queue as destroys.
   * Both entries wire it; without it (a test of destroys alone) a platform apply is retried, never lost.
   */
  runPlatformApply?: PlatformApplyRunner;
  now?: () => number;
  /** Where notifications go: the network, or the dev entry's local sink. */
  sendNotification?: NotificationSender;
}

export type QueueHandlerResult =
  | { queue: "destroys"; reports: DestroyReport[]; platformApplies: PlatformApplyReport[] }
  | { queue: "dead-letters"; stored: string[] }
  | { queue: "notifications"; reports: NotifyReport[] }
  | { queue: "notification-dead-letters"; logged: string[] };

/** The batch's outcome, for tests and for any caller that wants the reports. */
export async function handleQueueBatch(
  batch: MessageBatch<unknown>,
  env: Env,
  deps: QueueHandlerDeps,
): Promise<QueueHandlerResult> {
  const names = queueNames(env);
  if (batch.queue === names.destroys) {
    // One queue, two kinds of message (docs/design.md, "The platform door"): each to its consumer.
    const applies = batch.messages.filter((m) => isPlatformApplyBody(m.body));
    const destroys = batch.messages.filter((m) => !isPlatformApplyBody(m.body));
    const [reports, platformApplies] = await Promise.all([
      consumeDestroys({ ...batch, messages: destroys }, env, deps.runDestroy),
      consumePlatformApplies(applies, env, deps.runPlatformApply ?? unwired, deps.now),
    ]);
    return { queue: "destroys", reports, platformApplies };
  }
  if (batch.queue === names.deadLetters) {
    return { queue: "dead-letters", stored: await storeDeadLetters(batch, env, (deps.now ?? Date.now)()) };
  }
  if (batch.queue === names.notifications) {
    const reports = await consumeNotifications(batch, env, deps.sendNotification ?? networkSender);
    return { queue: "notifications", reports };
  }
  if (batch.queue === names.notificationDeadLetters) {
    return { queue: "notification-dead-letters", logged: consumeNotificationDeadLetters(batch) };
  }
  // A consumer added in wrangler.toml without its name here: retry rather than lose work.
  throw new Error(`no consumer for queue ${batch.queue}`);
}

const unwired: PlatformApplyRunner = async () => {
  throw new Error("no platform apply runner is wired in this entry");
};

export function createQueueHandler(deps: QueueHandlerDeps) {
  return async function queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    await handleQueueBatch(batch, env, deps);
  };
}
