/** A fresh emulated Auth0 tenant and an OpContext for the adapter pointed at it. */
import { auth0Adapter } from "../../../workers/adapters/auth0";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import { type Auth0TenantSeed, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { harness } from "../../helpers/provider-contract";

export const M2M = { clientId: "m2m-sponson", clientSecret: "m2m-secret-3f9a7c21" };
export const APP = "app-previews";

export function op(name: string): OpSpec {
  const found = auth0Adapter.ops.find((o) => o.name === name);
  if (!found) throw new Error(`no op ${name}`);
  return found;
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
  const config = { type: "auth0", domain, clientId: M2M.clientId, clientSecret };
  return { ...harness(auth0Adapter, config, [clientSecret]), domain };
}

/** Params of a line adding `url` to the test application. */
export const line = (url: string, client = APP) => ({ client, url });
