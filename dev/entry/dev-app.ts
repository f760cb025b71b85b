/**
 * The dev entry's app: production's createApp on the emulator transport, plus the view of what an
 * emulated host holds and, when asked, the browser tests' lock hooks. The tests drive this app.
 */
import { env } from "cloudflare:workers";
import { type App, type AppOptions, createApp } from "../../workers/app";
import { emulatorTransport } from "./dev-env";
import { emulatorRoutes } from "./emulator-routes";
import { localAccessFetch } from "./local-access";
import { notificationRoutes } from "./notification-routes";
import { testHookRoutes } from "./test-hooks";

export interface DevAppOptions extends Omit<AppOptions, "transport"> {
  /** The lock hooks of ./test-hooks.ts (local browser tests only). */
  testHooks?: boolean;
}

export function createDevApp(options: DevAppOptions = {}): App {
  const { testHooks, ...appOptions } = options;
  // The local Access issuer's keys (./local-access.ts), read when a `.localhost` team's are fetched.
  const accessFetch = localAccessFetch(
    () => (env as { SPONSON_ACCESS_DEV_KEY?: unknown }).SPONSON_ACCESS_DEV_KEY,
  );
  const auth = { accessFetch, ...appOptions.auth };
  const app = createApp({ ...appOptions, auth, transport: emulatorTransport });
  // Before the per-host view, whose `{host}` would otherwise take "notifications".
  app.route("/", notificationRoutes);
  app.route("/", emulatorRoutes);
  if (testHooks) app.route("/", testHookRoutes);
  return app;
}
