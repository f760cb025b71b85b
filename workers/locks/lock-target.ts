/**
 * The Worker's view of one lock object: a thin RPC wrapper the client-side lease and the routes
 * share, so tests can put any LockTarget behind a Lease.
 */
import type { AcquireRequest } from "../../durable-objects/lease-lock";
import type { Env } from "../../shared/env";
import type { Result } from "../../shared/errors";
import type { LeaseGrant, LockState, ReleaseOutcome } from "../../shared/schemas/lock";
import type {
  Locator,
  OwnedItem,
  OwnerChange,
  OwnershipRecord,
  OwnershipView,
} from "../../shared/schemas/ownership";

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

/** The lease object's RPC surface with its result types (RPC typing loses the union otherwise). */
export interface LeaseLockApi {
  acquire(req: AcquireRequest): Promise<Result<LeaseGrant>>;
  claim(req: { key: string; holder: string; token: number }): Promise<Result<LeaseGrant>>;
  renew(req: { key: string; holder: string; token: number }): Promise<Result<LeaseGrant>>;
  release(req: { key: string; holder: string; token: number }): Promise<Result<ReleaseOutcome>>;
  forceRelease(req: { key: string; reason: string; actor: string }): Promise<Result<ReleaseOutcome>>;
  read(req: { key: string }): Promise<LockState>;
  owners(req: {
    key: string;
    holder: string;
    token: number;
    items: OwnedItem[];
  }): Promise<Result<OwnershipView>>;
  changeOwners(req: {
    key: string;
    holder: string;
    token: number;
    changes: OwnerChange[];
    rebuilt?: boolean;
    locator?: Locator;
  }): Promise<Result<OwnershipView>>;
  ownership(req: { key: string }): Promise<OwnershipRecord>;
}

export function lockStub(env: Env, key: string): LeaseLockApi {
  return env.LEASE_LOCK.get(env.LEASE_LOCK.idFromName(key)) as unknown as LeaseLockApi;
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
