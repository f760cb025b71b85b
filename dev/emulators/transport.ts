/**
 * Outbound provider HTTP of the dev entry and the tests (dev/entry/dev-env.ts): adapters always
 * address the provider's real host, and the request is answered by that host's emulator object
 * instead of the network. The production entry (workers/index.ts) never imports this.
 */
import type { DevEnv } from "../entry/dev-env";
import { LOST_ANSWER_HEADER } from "./knobs";
import { emulatorObjectName } from "./registry";

export function providerFetch(env: DevEnv): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const name = emulatorObjectName(new URL(request.url));
    const response = await env.PROVIDER_EMULATOR.get(env.PROVIDER_EMULATOR.idFromName(name)).fetch(request);
    if (!response.headers.has(LOST_ANSWER_HEADER)) return response;
    // The write was applied and its answer lost: what a connection broken mid-answer looks like.
    throw new TypeError("Network connection lost.");
  };
}
