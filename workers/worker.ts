/**
 * The Worker's handlers around an app: HTTP, the destroy queue and the sweep, all on the provider
 * transport the entry chose. Both entries use it (workers/index.ts, dev/entry/index.ts), so the
 * tests run the same handlers production does.
 */
import type { Env } from "../shared/env";
import type { App } from "./app";
import type { NotificationSender } from "./notify/deliver";
import { createQueueHandler } from "./queue/queue-handler";
import { createSweepHandler } from "./sweep/sweep-handler";
import { engineDestroyRunner, engineSweepParts } from "./wiring/background";
import { enginePlatformApplyRunner } from "./wiring/platform-apply";
import type { ProviderTransport } from "./wiring/wire";

export function workerHandlers(
  app: App,
  transport: ProviderTransport,
  options: { sendNotification?: NotificationSender } = {},
) {
  return {
    fetch: app.fetch,
    queue: createQueueHandler({
      runDestroy: engineDestroyRunner(transport),
      runPlatformApply: enginePlatformApplyRunner(transport),
      ...options,
    }),
    scheduled: createSweepHandler(engineSweepParts(transport)),
  } satisfies ExportedHandler<Env>;
}
