/**
 * A provider object's page address: the hash in its parent lock key (`_locks/<32 hex>`,
 * shared/lock-keys.ts), so the page URL never carries the identity itself.
 */
import { PARENT_LOCKS_ENVIRONMENT, parentLockKey } from "../../shared/lock-keys";
import { SecretRegistry } from "../../shared/secrets";

export const OBJECT_HASH = /^[0-9a-f]{32}$/;

export async function objectHash(identity: string): Promise<string> {
  const key = await parentLockKey(identity, new SecretRegistry());
  return key.slice(PARENT_LOCKS_ENVIRONMENT.length + 1);
}

export const lockKeyOfHash = (hash: string) => `${PARENT_LOCKS_ENVIRONMENT}/${hash}`;
