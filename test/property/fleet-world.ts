/**
 * The fleet property's world (./fleet-model.ts): two fresh emulated Auth0 tenants, each seeded with
 * two applications holding the foreign entries, three connections (two to the first tenant), a
 * fresh Clerk instance with its foreign redirect URLs and one connection, a fresh Google API key
 * with its foreign referrers and one connection, and how to read what the objects hold, the locks
 * and the receipts, each from its own authority.
 */
import { env } from "cloudflare:workers";
import {
  type ApiKeyRecord,
  apiKeyRecord,
  apiKeysKeys,
  etagOf,
  type OperationsKnob,
} from "../../dev/emulators/apikeys";
import type { ListField } from "../../dev/emulators/auth0/state";
import {
  CLERK_HOST,
  type ClerkRace,
  type ClerkRedirectUrl,
  clerkInstance,
  clerkKeys,
  clerkRedirectUrl,
  OUTSIDE_ID_PREFIX,
} from "../../dev/emulators/clerk";
import { type Clock, systemClock } from "../../shared/clock";
import { parentLockKey, scopeLockKey } from "../../shared/lock-keys";
import type { Plan } from "../../shared/schemas/plan";
import { SecretRegistry } from "../../shared/secrets";
import { lockStub } from "../../workers/locks/lock-target";
import { receiptKey } from "../../workers/receipts/layout";
import { registerConnection } from "../helpers/connections";
import { auth0Client, emulatorStub, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import {
  APIKEYS_HOST,
  apiKey,
  landPendingOperations,
  seedApiKey,
  seedApiKeysProject,
  setOperations,
} from "../helpers/emulators-apikeys";
import { googleServiceAccount, type ServiceAccount } from "../helpers/emulators-firebase";
import { SECRET_NAME, TEST_M2M } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { ORIGIN_CAP } from "./fleet-evictions";
import {
  APIKEY_FOREIGN,
  APIKEY_OBJECT,
  APIKEY_OP,
  AUTH0_TENANTS,
  type Auth0Op,
  CLERK_FOREIGN,
  CLERK_OBJECT,
  CLERK_OP,
  FOREIGN,
  type LineSpec,
  OBJECTS,
  urlOf,
} from "./fleet-model";
import { QUOTA_CAPACITY } from "./fleet-quota";

export const ENVIRONMENT = "preview";
/** The binding holding the Clerk key (every world's instance is reached with it: fleetEngine's bindings). */
export const CLERK_SECRET_BINDING = "FLEET_CLERK_SECRET_KEY";
/** One key for the file: each world points it at its own fresh instance (histories run one by one). */
export const CLERK_SECRET_KEY = `sk_live_fleet${crypto.randomUUID().replaceAll("-", "")}`;
/** The binding holding the Google service account's key file that updates every world's API key. */
export const APIKEY_SECRET_BINDING = "FLEET_GOOGLE_KEY";
/** The key id of every world's API key (each world's project is fresh). */
const APIKEY_ID = "fleet-key";
/** One service account for the file, as the Clerk key is (made on first use: it is seeded on the token host). */
let googleAccount: Promise<ServiceAccount> | null = null;

export const FIELD_OF: Record<Auth0Op, ListField> = {
  "auth0.callbackUrl": "callbacks",
  "auth0.logoutUrl": "allowed_logout_urls",
  "auth0.webOrigin": "web_origins",
  "auth0.allowedOrigin": "allowed_origins",
};
export const FIELDS = Object.values(FIELD_OF);

export interface FleetWorld {
  /** Hosts by tenant index: the Auth0 tenants, then Clerk's API. */
  domains: string[];
  /** The Clerk instance of the world (ins_…). */
  clerkInstance: string;
  /** The world's API key: its project, and the key file of the account that updates it. */
  apiKey: { project: string; keyJson: string };
  /** Connection names by index (./fleet-model.ts CONNECTIONS_OF_TENANT). */
  connections: string[];
  scopeName(index: number): string;
  /**
   * Writes answered as lost (./fleet-faults.ts): the tenants whose kept write lands after the next
   * group (nothing kept that group out), and how many landed in all, at once or deferred.
   */
  late: { deferred: Set<number>; landed: number; deferredLanded: number };
  /**
   * The redirect URLs a run's POST met as created by another writer (Clerk's duplicate: the race
   * hook's), and the referrers another writer added to the API key, as item ids: theirs for good,
   * even once gone from the provider (`outsideItems`).
   */
  outsideSeen: Set<string>;
  /** Every engine's clock in this world: the wall clock, moved forward by `idle` steps. */
  clock: FleetClock;
  /** Web origins capped and the environment evicting its stale scopes (./fleet-evictions.ts). */
  evicting: boolean;
  /** Web origins shared out per scope and per repository (./fleet-quota.ts). */
  quota: boolean;
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
  { evicting = false, quota = false }: { evicting?: boolean; quota?: boolean } = {},
): Promise<FleetWorld> {
  worlds += 1;
  const domains = [
    ...Array.from({ length: AUTH0_TENANTS }, () => freshAuth0Domain("fleet")),
    CLERK_HOST,
    APIKEYS_HOST,
  ];
  const [d0, d1] = domains as [string, string];
  const clerk = `ins_fleet${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
  const connection = (name: string, domain: string) =>
    registerConnection(name, {
      type: "auth0",
      config: { domain, clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
      ...(evicting ? { capacity: { "auth0.webOrigin": ORIGIN_CAP } } : {}),
      ...(quota ? { capacity: QUOTA_CAPACITY } : {}),
    });
  const connections = [
    connection(`fleet-${worlds}-a-${d0}`, d0),
    connection(`fleet-${worlds}-b-${d0}`, d0),
    connection(`fleet-${worlds}-c-${d1}`, d1),
    registerConnection(`fleet-${worlds}-clerk-${clerk}`, {
      type: "clerk",
      config: { instance: clerk },
      secrets: { secretKey: CLERK_SECRET_BINDING },
    }),
    registerConnection(`fleet-${worlds}-apikey`, {
      type: "googleapikey",
      secrets: { serviceAccountKey: APIKEY_SECRET_BINDING },
    }),
  ];
  googleAccount ??= googleServiceAccount();
  const account = await googleAccount;
  const project = `fleet-${crypto.randomUUID().slice(0, 8)}`;
  await seedApiKeysProject(project, { members: { [account.email]: "admin" } });
  await seedApiKey(
    project,
    APIKEY_ID,
    apiKeyRecord(project, APIKEY_ID, { browserKeyRestrictions: { allowedReferrers: [...APIKEY_FOREIGN] } }),
  );
  const foreign = Object.fromEntries(FIELDS.map((f) => [f, [...FOREIGN[f]]]));
  const redirects = Object.fromEntries(
    CLERK_FOREIGN.map((url, i) => {
      const id = `ru_seed${i}${clerk.slice(9, 17)}`;
      return [clerkKeys.redirect(clerk, id), clerkRedirectUrl(id, url, 1_700_000_000_000 + i)];
    }),
  );
  await emulatorStub(CLERK_HOST).seed({
    [clerkKeys.key(CLERK_SECRET_KEY)]: { instance: clerk },
    [clerkKeys.instance(clerk)]: clerkInstance(clerk),
    ...redirects,
  });
  await Promise.all(
    domains.slice(0, AUTH0_TENANTS).map((domain, tenant) =>
      seedAuth0Tenant(domain, {
        m2m: TEST_M2M,
        clients: Object.fromEntries(
          OBJECTS.filter((o) => o.tenant === tenant).map((o) => [o.client, foreign]),
        ),
      }),
    ),
  );
  return {
    domains,
    clerkInstance: clerk,
    apiKey: { project, keyJson: account.keyJson },
    connections,
    scopeName,
    late: { deferred: new Set(), landed: 0, deferredLanded: 0 },
    outsideSeen: new Set(),
    clock: fleetClock(),
    evicting,
    quota,
  };
}

export function identityOf(world: FleetWorld, object: number): string {
  const o = OBJECTS[object];
  if (!o) throw new Error(`no object ${object}`);
  if (object === CLERK_OBJECT) return `clerk:instance:${world.clerkInstance}`;
  if (object === APIKEY_OBJECT) return `googleapikey:${world.apiKey.project}:key:${APIKEY_ID}`;
  return `auth0:${(world.domains[o.tenant] as string).toLowerCase()}:client:${o.client}`;
}

export function planOf(world: FleetWorld, lines: readonly LineSpec[]): Plan {
  return {
    version: 2,
    lines: lines.map((l) => ({
      id: l.label,
      op: l.op,
      connection: world.connections[l.connection] as string,
      params: (l.object === CLERK_OBJECT
        ? { url: l.url }
        : l.object === APIKEY_OBJECT
          ? { project: world.apiKey.project, key: APIKEY_ID, referrer: l.url }
          : { client: OBJECTS[l.object]?.client as string, url: l.url }) as Record<string, string>,
    })),
  };
}

/** What object `object` holds now, as `op url` strings (one per entry, duplicates kept). */
export async function entriesOf(world: FleetWorld, object: number): Promise<string[]> {
  const o = OBJECTS[object];
  if (!o) throw new Error(`no object ${object}`);
  if (object === CLERK_OBJECT)
    return (await redirectUrls(world)).map((r) => `${CLERK_OP} ${r.url} @${object}`);
  if (object === APIKEY_OBJECT) return (await referrers(world)).map((r) => `${APIKEY_OP} ${r} @${object}`);
  const client = await auth0Client(world.domains[o.tenant] as string, o.client);
  if (!client) throw new Error(`application ${o.client} is gone`);
  return (Object.entries(FIELD_OF) as Array<[Auth0Op, ListField]>).flatMap(([op, field]) =>
    client[field].map((url) => `${op} ${url} @${object}`),
  );
}

async function referrers(world: FleetWorld): Promise<string[]> {
  const key = (await apiKey(world.apiKey.project, APIKEY_ID))?.key;
  const browser = key?.restrictions?.browserKeyRestrictions as { allowedReferrers?: string[] } | undefined;
  return browser?.allowedReferrers ?? [];
}

/** Referrers another writer adds to the API key (`outside-update`): theirs, foreign to every scope. */
const OUTSIDE_REFERRER = "https://outside-";

/**
 * Another writer updates the API key, adding a referrer of its own: a new version, a new etag, so a
 * PATCH carrying the etag read before it is refused (./fleet-faults.ts, `outside-update`).
 */
export async function outsideUpdate(world: FleetWorld): Promise<void> {
  const storageKey = apiKeysKeys.key(world.apiKey.project, APIKEY_ID);
  const record = (await emulatorStub(APIKEYS_HOST).dump(storageKey))[storageKey] as ApiKeyRecord;
  const version = record.version + 1;
  const browser = record.key.restrictions?.browserKeyRestrictions as
    | { allowedReferrers?: string[] }
    | undefined;
  const theirs = `${OUTSIDE_REFERRER}${version}.example.com/*`;
  const allowedReferrers = [...(browser?.allowedReferrers ?? []), theirs];
  // Theirs for good, even once gone from the key: a run that removed it lost it.
  world.outsideSeen.add(`${APIKEY_OP} ${theirs} @${APIKEY_OBJECT}`);
  await emulatorStub(APIKEYS_HOST).seed({
    [storageKey]: {
      ...record,
      version,
      key: {
        ...record.key,
        restrictions: {
          ...record.key.restrictions,
          browserKeyRestrictions: { ...browser, allowedReferrers },
        },
        etag: etagOf(record.key.uid, version),
      },
    } satisfies ApiKeyRecord,
  });
}

/** How the API key's next updates' operations end (an Operation fault); null: done at once. */
export async function setApiKeyOperations(world: FleetWorld, knob: OperationsKnob | null): Promise<void> {
  await setOperations(world.apiKey.project, APIKEY_ID, knob);
}

/** The API key's pending operations land now; how many. */
export function landApiKeyOperations(world: FleetWorld): Promise<number> {
  return landPendingOperations(world.apiKey.project, APIKEY_ID);
}

async function redirectUrls(world: FleetWorld): Promise<ClerkRedirectUrl[]> {
  return Object.values(
    await emulatorStub(CLERK_HOST).dump(clerkKeys.redirects(world.clerkInstance)),
  ) as ClerkRedirectUrl[];
}

/**
 * The redirect URLs another writer created (the race hook's, `outside-create`), as item ids: theirs,
 * foreign to every scope from then on, never the service's to remove. Those a run's POST met
 * (`outsideSeen`) count even when no longer there: a run that removed one lost it.
 */
export async function outsideItems(world: FleetWorld): Promise<string[]> {
  const there = (await redirectUrls(world))
    .filter((r) => r.id.startsWith(OUTSIDE_ID_PREFIX))
    .map((r) => `${CLERK_OP} ${r.url} @${CLERK_OBJECT}`);
  const referred = (await referrers(world))
    .filter((r) => r.startsWith(OUTSIDE_REFERRER))
    .map((r) => `${APIKEY_OP} ${r} @${APIKEY_OBJECT}`);
  return [...new Set([...there, ...referred, ...world.outsideSeen])];
}

/**
 * The engine's transport as the fleet sees it: a POST of a redirect URL Clerk refuses as a
 * duplicate met another writer's URL (within a parent lease, nobody else of the service writes it).
 */
export function seeingOutsideCreates(world: FleetWorld): (inner: typeof fetch) => typeof fetch {
  return (inner) => async (input, init) => {
    const response = await inner(input, init);
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (
      url.host === CLERK_HOST &&
      request.method === "POST" &&
      url.pathname === "/v1/redirect_urls" &&
      response.status === 422
    ) {
      const body = (await request.json().catch(() => ({}))) as { url?: string };
      if (body.url) world.outsideSeen.add(`${CLERK_OP} ${body.url} @${CLERK_OBJECT}`);
    }
    return response;
  };
}

/**
 * The race hook (`outside-create`): another writer creates the nth URL of `scope`'s own that is
 * POSTed on the instance, right before that POST. `disarm` says whether it fired and removes it if not.
 */
export async function armOutsideCreate(world: FleetWorld, scope: number, nth: number) {
  const key = clerkKeys.race(CLERK_SECRET_KEY, `https://${world.scopeName(scope)}.`);
  const stub = emulatorStub(CLERK_HOST);
  await stub.seed({ [key]: { nth } satisfies ClerkRace });
  return async (): Promise<boolean> => {
    const left = (await stub.dump(key))[key];
    if (left === undefined) return true;
    await stub.seed({ [key]: { nth: 0 } satisfies ClerkRace });
    return false;
  };
}

/** The foreign entries every object holds, as item ids. */
export function foreignItems(object: number): string[] {
  if (object === CLERK_OBJECT) return CLERK_FOREIGN.map((url) => `${CLERK_OP} ${url} @${object}`);
  if (object === APIKEY_OBJECT) return APIKEY_FOREIGN.map((r) => `${APIKEY_OP} ${r} @${object}`);
  return (Object.entries(FIELD_OF) as Array<[Auth0Op, ListField]>).flatMap(([op, field]) =>
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
