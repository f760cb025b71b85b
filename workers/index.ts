/** The Worker's entry: the HTTP app and the Durable Object classes wrangler binds. */
import { createApp } from "./app";
import { createQueueHandler } from "./queue/queue-handler";
import { createSweepHandler } from "./sweep/sweep-handler";

export { LeaseLock } from "../durable-objects/lease-lock";
export { ProviderEmulator } from "../durable-objects/provider-emulator";
export { ScopeState } from "../durable-objects/scope-state";

const app = createApp();

export default {
  fetch: app.fetch,
  // The engine plugs in its destroy runner and sweep parts here (see the two factories).
  queue: createQueueHandler(),
  scheduled: createSweepHandler(),
} satisfies ExportedHandler<import("../shared/env").Env>;
