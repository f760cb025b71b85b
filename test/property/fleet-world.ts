/**
 * The fleet property's world (./fleet-model.ts): two fresh emulated Auth0 tenants, each seeded with
 * two applications holding the foreign entries, three connections (two to the first tenant), and
 * how to read what the applications hold, the locks and the receipts, each from its own authority.
 */
import { env } from "cloudflare:workers";
import type { ListField } from "../../dev/emulators/auth0/state";
import { type Clock, systemClock } from "../../shared/clock";
import { parentLockKey, scopeLockKey } from "../../shared/lock-keys";
import type { Plan } from "../../shared/schemas/plan";
import { SecretRegistry } from "../../shared/secrets";
import { lockStub } from "../../workers/locks/lock-target";
import { receiptKey } from "../../workers/receipts/layout";
import { registerConnection } from "../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { SECRET_NAME, TEST_M2M } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { ORIGIN_CAP } from "./fleet-evictions";
import { FOREIGN, type LineSpec, OBJECTS, type OpName, TENANTS, urlOf } from "./fleet-model";

export const ENVIRONMENT = "preview";

export const FIELD_OF: Record<OpName, ListField> = {
  "auth0.callbackUrl": "callbacks",
  "auth0.logoutUrl": "allowed_logout_urls",
  "auth0.webOrigin": "web_origins",
  "auth0.allowedOrigin": "allowed_origins",
};
export const FIELDS = Object.values(FIELD_OF);

export interface FleetWorld {
  domains: string[];
  /** Connection names by index (./fleet-model.ts CONNECTIONS_OF_TENANT). */
  connections: string[];
  scopeName(index: number): string;
  /** Every engine's clock in this world: the wall clock, moved forward by `idle` steps. */
  clock: FleetClock;
  /** Web origins capped and the environment evicting its stale scopes (./fleet-evictions.ts). */
  evicting: boolean;
}

/**
 * The wall clock plus an offset the history moves forward between groups (days passing, so scopes
 * go idle), with retry backoffs that return at once. Real time otherwise: lease objects expire
 * leases and renewals run on timers, and an offset that only changes while no run is going is an
 * offset between a run and the lock object, which the lease protocol tolerates ("Lease protocol").
 */
export interface FleetClock extends Clock {
  advance(ms: number): void;
}

function fleetClock(): FleetClock {
  let offset = 0;
  return {
    ...systemClock,
    now: () => Date.now() + offset,
    sleep: async () => {},
    advance: (ms) => {
      offset += ms;
    },
  };
}

let worlds = 0;
export async function freshFleetWorld(
  scopeName: (i: number) => string,
  { evicting = false }: { evicting?: boolean } = {},
): Promise<FleetWorld> {
  worlds += 1;
  const domains = Array.from({ length: TENANTS }, () => freshAuth0Domain("fleet"));
  const [d0, d1] = domains as [string, string];
  const connection = (name: string, domain: string) =>
    registerConnection(name, {
      type: "auth0",
      config: { domain, clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
      ...(evicting ? { capacity: { "auth0.webOrigin": ORIGIN_CAP } } : {}),
    });
  const connections = [
    connection(`fleet-${worlds}-a-${d0}`, d0),
    connection(`fleet-${worlds}-b-${d0}`, d0),
    connection(`fleet-${worlds}-c-${d1}`, d1),
  ];
  const foreign = Object.fromEntries(FIELDS.map((f) => [f, [...FOREIGN[f]]]));
  await Promise.all(
    domains.map((domain, tenant) =>
      seedAuth0Tenant(domain, {
        m2m: TEST_M2M,
        clients: Object.fromEntries(
          OBJECTS.filter((o) => o.tenant === tenant).map((o) => [o.client, foreign]),
        ),
      }),
    ),
  );
  return { domains, connections, scopeName, clock: fleetClock(), evicting };
}

export function identityOf(world: FleetWorld, object: number): string {
  const o = OBJECTS[object];
  if (!o) throw new Error(`no object ${object}`);
  return `auth0:${(world.domains[o.tenant] as string).toLowerCase()}:client:${o.client}`;
}

export function planOf(world: FleetWorld, lines: readonly LineSpec[]): Plan {
  return {
    version: 2,
    lines: lines.map((l) => ({
      id: l.label,
      op: l.op,
      connection: world.connections[l.connection] as string,
      params: { client: OBJECTS[l.object]?.client as string, url: l.url },
    })),
  };
}

/** What object `object` holds now, as `op url` strings (one per entry, duplicates kept). */
export async function entriesOf(world: FleetWorld, object: number): Promise<string[]> {
  const o = OBJECTS[object];
  if (!o) throw new Error(`no object ${object}`);
  const client = await auth0Client(world.domains[o.tenant] as string, o.client);
  if (!client) throw new Error(`application ${o.client} is gone`);
  return (Object.entries(FIELD_OF) as Array<[OpName, ListField]>).flatMap(([op, field]) =>
    client[field].map((url) => `${op} ${url} @${object}`),
  );
}

/** The foreign entries every object holds, as item ids. */
export function foreignItems(object: number): string[] {
  return (Object.entries(FIELD_OF) as Array<[OpName, ListField]>).flatMap(([op, field]) =>
    FOREIGN[field].map((url) => `${op} ${url} @${object}`),
  );
}

export function scopeKey(world: FleetWorld, scope: number): string {
  return scopeLockKey(DEFAULT_REPOSITORY.id, ENVIRONMENT, world.scopeName(scope));
}

export function parentKey(world: FleetWorld, object: number): Promise<string> {
  return parentLockKey(identityOf(world, object), new SecretRegistry());
}

export function receiptR2Key(world: FleetWorld, scope: number): string {
  return receiptKey(DEFAULT_REPOSITORY.id, ENVIRONMENT, world.scopeName(scope));
}

export async function forceRelease(key: string, reason: string): Promise<void> {
  await lockStub(env, key).forceRelease({ key, reason, actor: "property" });
}

export { urlOf };
