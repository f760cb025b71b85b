/**
 * The Worker's view of one lock object: a thin RPC wrapper the client-side lease and the routes
 * share, so tests can put any LockTarget behind a Lease.
 */
import type { Env } from "../../shared/env";
import type { Result } from "../../shared/errors";
import type { LeaseLockApi } from "../../shared/rpc/lease-lock";
import { rpcStub } from "../../shared/rpc/stub";
import type { CombineReport, GrantOrCombined, QueuedChange, TakenQueue } from "../../shared/schemas/combine";
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
  /**
   * Write combining (docs/design.md, "Write combining: the lock object's side"): acquire, bringing
   * the changes this run wants made on the object in case it has to wait.
   */
  acquireOrCombine(
    holder: string,
    ttlMs: number,
    wait: boolean,
    waitTimeoutMs: number,
    changes: QueuedChange[],
  ): Promise<Result<GrantOrCombined>>;
  /** The queued changes no live lease took yet, taken by this holder's token. */
  takeQueued(holder: string, token: number): Promise<Result<TakenQueue>>;
  reportCombined(
    holder: string,
    token: number,
    reports: CombineReport[],
    ownerChanges: OwnerChange[],
    locator?: Locator,
  ): Promise<Result<void>>;
}

export function lockStub(env: Env, key: string): LeaseLockApi {
  return rpcStub(env.LEASE_LOCK, key);
}

export function lockTarget(env: Env, key: string, identity: string | null = null): LockTarget {
  // A stub per call: a stub whose object was reset keeps failing, and the client re-joins after a reset.
  const stub = () => lockStub(env, key);
  return {
    key,
    identity,
    acquire: (holder, ttlMs, wait, waitTimeoutMs) =>
      stub().acquire({ key, holder, ttlMs, identity, wait, waitTimeoutMs }),
    claim: (holder, token) => stub().claim({ key, holder, token }),
    renew: (holder, token) => stub().renew({ key, holder, token }),
    release: (holder, token) => stub().release({ key, holder, token }),
    owners: (holder, token, items) => stub().owners({ key, holder, token, items }),
    changeOwners: (holder, token, changes, options = {}) =>
      stub().changeOwners({ key, holder, token, changes, ...options }),
    acquireOrCombine: (holder, ttlMs, wait, waitTimeoutMs, changes) =>
      stub().acquireOrCombine({ key, holder, ttlMs, identity, wait, waitTimeoutMs, changes }),
    takeQueued: (holder, token) => stub().takeQueued({ key, holder, token }),
    reportCombined: (holder, token, reports, ownerChanges, locator) =>
      stub().reportCombined(
        locator
          ? { key, holder, token, reports, ownerChanges, locator }
          : { key, holder, token, reports, ownerChanges },
      ),
  };
}

export function readLock(env: Env, key: string): Promise<LockState> {
  return lockStub(env, key).read({ key });
}
