/**
 * Outbound provider HTTP. Adapters always address the provider's real host; only when the Worker
 * runs with EMULATORS=on (tests, `npm start`) is the request answered by that host's emulator object
 * instead of the network. Production config does not set EMULATORS.
 */
import type { Env } from "../../shared/env";
import { emulatorObjectName } from "./registry";

export function providerFetch(env: Env): typeof fetch {
  if (env.EMULATORS !== "on") return fetch;
  return (input, init) => {
    const request = new Request(input, init);
    const name = emulatorObjectName(new URL(request.url));
    return env.PROVIDER_EMULATOR.get(env.PROVIDER_EMULATOR.idFromName(name)).fetch(request);
  };
}
