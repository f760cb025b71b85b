/** A fresh emulated Auth0 tenant and an OpContext for the adapter pointed at it. */
import { env } from "cloudflare:workers";
import { SecretRegistry } from "../../../shared/secrets";
import { auth0Adapter } from "../../../workers/adapters/auth0";
import { providerFetch } from "../../../workers/emulators/transport";
import type { OpContext, OpSpec } from "../../../workers/engine/op-spec";
import { type Auth0TenantSeed, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { FakeClock } from "../fake-clock";

export const M2M = { clientId: "m2m-sponson", clientSecret: "m2m-secret-3f9a7c21" };
export const APP = "app-previews";

export function op(name: string): OpSpec {
  const found = auth0Adapter.ops.find((o) => o.name === name);
  if (!found) throw new Error(`no op ${name}`);
  return found;
}

/** Every provider call the adapter made, as "METHOD /path". */
export function recording(inner: typeof fetch) {
  const calls: string[] = [];
  const responses: Response[] = [];
  const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    calls.push(`${request.method} ${new URL(request.url).pathname}`);
    const response = await inner(request);
    responses.push(response.clone());
    return response;
  }) as typeof fetch;
  return { fetcher, calls, responses };
}

interface TenantOptions {
  clients?: Auth0TenantSeed["clients"];
  scopes?: string[];
  /** The secret the adapter is configured with (default: the seeded one). */
  configuredSecret?: string;
}

export async function auth0Tenant(options: TenantOptions = {}) {
  const domain = freshAuth0Domain();
  await seedAuth0Tenant(domain, {
    m2m: { ...M2M, ...(options.scopes ? { scopes: options.scopes } : {}) },
    clients: options.clients ?? { [APP]: {} },
  });
  const clientSecret = options.configuredSecret ?? M2M.clientSecret;
  const secrets = new SecretRegistry();
  secrets.register(clientSecret);
  const clock = new FakeClock();
  const http = recording(providerFetch(env));
  const ctx: OpContext = {
    config: auth0Adapter.config.parse({ type: "auth0", domain, clientId: M2M.clientId, clientSecret }),
    fetch: http.fetcher,
    clock,
    secrets,
  };
  return { domain, ctx, clock, calls: http.calls, responses: http.responses };
}

/** Params of a line adding `url` to the test application. */
export const line = (url: string, client = APP) => ({ client, url });
