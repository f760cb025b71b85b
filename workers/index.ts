/**
 * The production entry (`main` in wrangler.toml): the HTTP app and the Durable Object classes
 * wrangler binds, with provider HTTP on the network. It imports no emulator and no test code; the
 * dev entry (dev/entry/index.ts, wrangler.dev.toml) adds those for `npm start` and the tests.
 */
import { createApp } from "./app";
import { networkTransport } from "./wiring/wire";
import { workerHandlers } from "./worker";

export { BudgetBucket } from "../durable-objects/budget-bucket";
export { ScopeState } from "../durable-objects/scope-state";
export { TokenBroker } from "../durable-objects/token-broker";
export { LeaseLock, LockFeed } from "./wiring/objects";

export default workerHandlers(createApp({ transport: networkTransport }), networkTransport);
