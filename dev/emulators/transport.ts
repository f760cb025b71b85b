/**
 * Outbound provider HTTP of the dev entry and the tests (dev/entry/dev-env.ts): adapters always
 * address the provider's real host, and the request is answered by that host's emulator object
 * instead of the network. The production entry (workers/index.ts) never imports this.
 */
import type { DevEnv } from "../entry/dev-env";
import { emulatorObjectName } from "./registry";

export function providerFetch(env: DevEnv): typeof fetch {
  return (input, init) => {
    const request = new Request(input, init);
    const name = emulatorObjectName(new URL(request.url));
    return env.PROVIDER_EMULATOR.get(env.PROVIDER_EMULATOR.idFromName(name)).fetch(request);
  };
}
