/** The Worker's entry: the HTTP app and the Durable Object classes wrangler binds. */
import { createApp } from "./app";

export { LeaseLock } from "../durable-objects/lease-lock";
export { ProviderEmulator } from "../durable-objects/provider-emulator";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<import("../shared/env").Env>;
