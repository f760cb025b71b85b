/**
 * The Worker's view of one lock object: a thin RPC wrapper the client-side lease and the routes
 * share, so tests can put any LockTarget behind a Lease.
 */
import type { Env } from "../../shared/env";
import type { Result } from "../../shared/errors";
import type { LeaseLockApi } from "../../shared/rpc/lease-lock";
import { rpcStub } from "../../shared/rpc/stub";
import type { LeaseGrant, LockState, ReleaseOutcome } from "../../shared/schemas/lock";
import type { Locator, OwnedItem, OwnerChange, OwnershipView } from "../../shared/schemas/ownership";

export interface LockTarget {
  readonly key: string;
  readonly identity: string | null;
  acquire(holder: string, ttlMs: number, wait: boolean, waitTimeoutMs: number): Promise<Result<LeaseGrant>>;
  /** Confirms a grant handed to a waiter (one with `claimBy`) before its claim window ends. */
  claim(holder: string, token: number): Promise<Result<LeaseGrant>>;
  renew(holder: string, token: number): Promise<Result<LeaseGrant>>;
  release(holder: string, token: number): Promise<Result<ReleaseOutcome>>;
  /** Ownership of the object's items, for the current holder only (LOCK_LOST otherwise). */
  owners(holder: string, token: number, items: OwnedItem[]): Promise<Result<OwnershipView>>;
  changeOwners(
    holder: string,
    token: number,
    changes: OwnerChange[],
    options?: { rebuilt?: boolean; locator?: Locator },
  ): Promise<Result<OwnershipView>>;
}

export function lockStub(env: Env, key: string): LeaseLockApi {
  return rpcStub(env.LEASE_LOCK, key);
}

export function lockTarget(env: Env, key: string, identity: string | null = null): LockTarget {
  const stub = lockStub(env, key);
  return {
    key,
    identity,
    acquire: (holder, ttlMs, wait, waitTimeoutMs) =>
      stub.acquire({ key, holder, ttlMs, identity, wait, waitTimeoutMs }),
    claim: (holder, token) => stub.claim({ key, holder, token }),
    renew: (holder, token) => stub.renew({ key, holder, token }),
    release: (holder, token) => stub.release({ key, holder, token }),
    owners: (holder, token, items) => stub.owners({ key, holder, token, items }),
    changeOwners: (holder, token, changes, options = {}) =>
      stub.changeOwners({ key, holder, token, changes, ...options }),
  };
}

export function readLock(env: Env, key: string): Promise<LockState> {
  return lockStub(env, key).read({ key });
}
