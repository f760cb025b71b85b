/**
 * Typed access to the provider emulator objects (one per host) for tests: seed a tenant, read what
 * the provider holds, turn knobs (latency, read barrier, injected failures).
 */
import { env } from "cloudflare:workers";
import {
  type Auth0ClientRecord,
  auth0Keys,
  clientRecord,
  DEFAULT_M2M_SCOPES,
  type M2mClient,
} from "../../dev/emulators/auth0/state";
import type { EmulatorKnobsInput } from "../../dev/emulators/knobs";

export function emulatorStub(host: string) {
  return env.PROVIDER_EMULATOR.get(env.PROVIDER_EMULATOR.idFromName(host));
}

/** A tenant host no other test uses: emulator storage is shared by the tests of one file. */
export function freshAuth0Domain(prefix = "t"): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}.us.auth0.com`;
}

export interface Auth0TenantSeed {
  m2m: { clientId: string; clientSecret: string; scopes?: string[] };
  clients: Record<string, Partial<Omit<Auth0ClientRecord, "client_id">>>;
}

/** Creates (or overwrites) the M2M credentials and applications of a tenant. */
export async function seedAuth0Tenant(domain: string, seed: Auth0TenantSeed): Promise<void> {
  const entries: Record<string, unknown> = {
    [auth0Keys.m2m(seed.m2m.clientId)]: {
      clientSecret: seed.m2m.clientSecret,
      scopes: seed.m2m.scopes ?? DEFAULT_M2M_SCOPES,
    } satisfies M2mClient,
  };
  for (const [id, client] of Object.entries(seed.clients))
    entries[auth0Keys.client(id)] = clientRecord(id, client);
  await emulatorStub(domain).seed(entries);
}

/** The application as the emulated tenant holds it now (undefined when it does not exist). */
export async function auth0Client(domain: string, id: string): Promise<Auth0ClientRecord | undefined> {
  const key = auth0Keys.client(id);
  const dump = await emulatorStub(domain).dump(key);
  return dump[key] as Auth0ClientRecord | undefined;
}

/** Replaces the host's knobs (latency, read barrier, failures) and resets its barrier. */
export async function configureHost(domain: string, knobs: EmulatorKnobsInput): Promise<void> {
  await emulatorStub(domain).configure(knobs);
}

/** Marks every token the tenant issued as expired, as if Auth0 had cut their lifetime short. */
export async function expireAuth0Tokens(domain: string): Promise<void> {
  const stub = emulatorStub(domain);
  const tokens = await stub.dump("token:");
  const expired = Object.fromEntries(
    Object.entries(tokens).map(([k, v]) => [k, { ...(v as object), expiresAt: 0 }]),
  );
  await stub.seed(expired);
}
