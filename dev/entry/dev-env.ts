/**
 * The dev entry's bindings (wrangler.dev.toml): production's, plus one provider emulator object
 * per emulated host and the browser tests' switch for the lock hooks. Production's Env has neither.
 */

import type { Env } from "../../shared/env";
import type { ProviderTransport } from "../../workers/wiring/wire";
import { providerFetch } from "../emulators/transport";
import type { ProviderEmulator } from "../provider-emulator";

export interface DevEnv extends Env {
  /** Emulated provider hosts, one object per host (dev/provider-emulator.ts). */
  PROVIDER_EMULATOR: DurableObjectNamespace<ProviderEmulator>;
  /** "on": mount the lock hooks of ./test-hooks.ts (test/support/wrangler-dev.ts sets it). */
  SPONSON_TEST_HOOKS?: string;
}

/** The bindings as the dev entry's; a Worker started without wrangler.dev.toml is refused loudly. */
export function devEnv(env: Env): DevEnv {
  const namespace = env.PROVIDER_EMULATOR as { idFromName?: unknown } | undefined;
  if (typeof namespace?.idFromName !== "function")
    throw new Error("PROVIDER_EMULATOR is not bound: the dev entry runs with wrangler.dev.toml");
  return env as DevEnv;
}

/**
 * Dev and tests: every provider request is answered by its host's emulator, never the network; so
 * here, and only here, `EMULATORS=on` without SPONSON_POLICY opens the write policy.
 */
export const emulatorTransport: ProviderTransport = Object.assign(
  (env: Parameters<ProviderTransport>[0]) => providerFetch(devEnv(env)),
  { emulated: true as const },
);
