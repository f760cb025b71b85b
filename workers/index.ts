/** The Worker's entry: the HTTP app and the Durable Object classes wrangler binds. */
import { env } from "cloudflare:workers";
import { createApp } from "./app";
import { engineDestroyRunner, engineSweepParts } from "./engine/background";
import { createQueueHandler } from "./queue/queue-handler";
import { createSweepHandler } from "./sweep/sweep-handler";

export { LeaseLock } from "../durable-objects/lease-lock";
export { LockFeed } from "../durable-objects/lock-feed";
export { ProviderEmulator } from "../durable-objects/provider-emulator";
export { ScopeState } from "../durable-objects/scope-state";

// The browser tests' lock hooks exist only on a local instance that asks for them (test/e2e/).
const app = createApp({ testHooks: env.SPONSON_TEST_HOOKS === "on" && env.EMULATORS === "on" });

export default {
  fetch: app.fetch,
  queue: createQueueHandler({ runDestroy: engineDestroyRunner }),
  scheduled: createSweepHandler(engineSweepParts),
} satisfies ExportedHandler<import("../shared/env").Env>;
