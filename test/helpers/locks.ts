import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { lockStub } from "../../workers/locks/lock-target";

let counter = 0;
/** A fresh lock key per test: storage is shared across tests in one file. */
export function freshScopeKey(prefix = "t"): string {
  counter += 1;
  return `scope:preview/branch-${prefix}-${counter}-${crypto.randomUUID().slice(0, 8)}`;
}

export function stub(key: string) {
  return lockStub(env, key);
}

/** The raw Durable Object stub, for the vitest plugin's runInDurableObject and runDurableObjectAlarm. */
export function rawStub(key: string) {
  return env.LEASE_LOCK.get(env.LEASE_LOCK.idFromName(key));
}

/**
 * Moves the live lease's expiry into the past, as if its TTL had run out, without running the
 * alarm: the way tests let time pass for an object without sleeping.
 */
export async function expireLeaseNow(key: string): Promise<void> {
  await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    state.storage.sql.exec("UPDATE lease SET expires_at = ? WHERE id = 1", Date.now() - 1);
  });
}
