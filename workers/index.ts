/** The Worker's entry: the HTTP app and the Durable Object classes wrangler binds. */
import { createApp } from "./app";
import { engineDestroyRunner, engineSweepParts } from "./engine/background";
import { createQueueHandler } from "./queue/queue-handler";
import { createSweepHandler } from "./sweep/sweep-handler";

export { LeaseLock } from "../durable-objects/lease-lock";
export { ProviderEmulator } from "../durable-objects/provider-emulator";
export { ScopeState } from "../durable-objects/scope-state";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: createQueueHandler({ runDestroy: engineDestroyRunner }),
  scheduled: createSweepHandler(engineSweepParts),
} satisfies ExportedHandler<import("../shared/env").Env>;
