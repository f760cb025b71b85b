/**
 * The dev entry (`main` in wrangler.dev.toml): the production Worker with provider HTTP answered by
 * the emulators, for `npm start`, the test suites and the bench. Never deployed: wrangler.toml's
 * entry is workers/index.ts, which imports nothing from this folder.
 */
import { env } from "cloudflare:workers";
import { workerHandlers } from "../../workers/worker";
import { createDevApp } from "./dev-app";
import { devEnv, emulatorTransport } from "./dev-env";
import { sinkSender } from "./notification-sink";

export { BudgetBucket } from "../../durable-objects/budget-bucket";
export { ScopeState } from "../../durable-objects/scope-state";
export { TokenBroker } from "../../durable-objects/token-broker";
export { LeaseLock, LockFeed } from "../../workers/wiring/objects";
export { ProviderEmulator } from "../provider-emulator";

// The browser tests' lock hooks exist only on a local instance that asks for them (test/e2e/).
const app = createDevApp({ testHooks: devEnv(env).SPONSON_TEST_HOOKS === "on" });

// Notifications are recorded at the local sink, never sent (GET /v1/emulators/notifications).
export default workerHandlers(app, emulatorTransport, { sendNotification: sinkSender });
