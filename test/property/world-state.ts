/**
 * Reads what the property checks, each from its own authority: the lists from the emulated Auth0
 * application, ledgers and intents from the R2 receipts, locks from their own lease objects.
 */
import { env } from "cloudflare:workers";
import type { ListField } from "../../dev/emulators/auth0/state";
import { parentLockKey, scopeLockKey } from "../../shared/lock-keys";
import type { LockState } from "../../shared/schemas/lock";
import type { Receipt } from "../../shared/schemas/receipt";
import { SecretRegistry } from "../../shared/secrets";
import { readLock } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { auth0Client, seedAuth0Tenant } from "../helpers/emulators";
import { APP_CLIENT, TEST_M2M } from "../helpers/plans";
import { DEFAULT_REPOSITORY, scopeAddress } from "../helpers/repositories";
import { ENVIRONMENT, type World } from "./history-runner";

export const FIELD_OF_OP: Record<string, ListField> = {
  "auth0.callbackUrl": "callbacks",
  "auth0.logoutUrl": "allowed_logout_urls",
  "auth0.webOrigin": "web_origins",
  "auth0.allowedOrigin": "allowed_origins",
};

/** Entries the application holds that no scope owns; they must survive every history. */
export const UNRELATED: Record<ListField, string[]> = {
  callbacks: ["https://app.example.com/callback", "http://localhost:3000/callback"],
  allowed_logout_urls: ["https://app.example.com/"],
  web_origins: ["https://app.example.com"],
  allowed_origins: [],
};

export type Lists = Record<ListField, string[]>;

export async function seedWorld(world: World): Promise<void> {
  await seedAuth0Tenant(world.domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { ...UNRELATED } } });
}

export async function providerLists(world: World): Promise<Lists> {
  const client = await auth0Client(world.domain, APP_CLIENT);
  if (!client) throw new Error(`application ${APP_CLIENT} is gone from ${world.domain}`);
  return {
    callbacks: client.callbacks,
    allowed_logout_urls: client.allowed_logout_urls,
    web_origins: client.web_origins,
    allowed_origins: client.allowed_origins,
  };
}

export async function receiptOf(world: World, scope: number): Promise<Receipt> {
  return (await new R2ReceiptStore(env.RECEIPTS).read(scopeAddress(ENVIRONMENT, world.scopeName(scope))))
    .receipt;
}

/** What the lists must hold: the unrelated entries plus every scope's ledger, nothing else. */
export function expectedLists(receipts: readonly Receipt[]): Lists {
  const want: Lists = {
    callbacks: [...UNRELATED.callbacks],
    allowed_logout_urls: [...UNRELATED.allowed_logout_urls],
    web_origins: [...UNRELATED.web_origins],
    allowed_origins: [...UNRELATED.allowed_origins],
  };
  for (const receipt of receipts) {
    for (const entry of receipt.ledger) {
      const field = FIELD_OF_OP[entry.op];
      if (!field) throw new Error(`unexpected op ${entry.op} in a ledger`);
      want[field].push(entry.key);
    }
  }
  return want;
}

/** Lists compared as sorted arrays: order is the provider's business, duplicates are not. */
export function sortedLists(lists: Lists): Lists {
  const sort = (l: string[]) => [...l].sort();
  return {
    callbacks: sort(lists.callbacks),
    allowed_logout_urls: sort(lists.allowed_logout_urls),
    web_origins: sort(lists.web_origins),
    allowed_origins: sort(lists.allowed_origins),
  };
}

export function applicationIdentity(world: World): string {
  return `auth0:${world.domain.toLowerCase()}:client:${APP_CLIENT}`;
}

/** Every lock a history can touch: the scope locks and the application's parent lock. */
export async function touchedLocks(world: World, scopes: readonly number[]): Promise<LockState[]> {
  const keys = scopes.map((i) => scopeLockKey(DEFAULT_REPOSITORY.id, ENVIRONMENT, world.scopeName(i)));
  keys.push(await parentLockKey(applicationIdentity(world), new SecretRegistry()));
  return Promise.all(keys.map((key) => readLock(env, key)));
}
