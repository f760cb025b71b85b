/**
 * The Worker's view of one lock object: a thin RPC wrapper the client-side lease and the routes
 * share, so tests can put any LockTarget behind a Lease.
 */
import type { Env } from "../../shared/env";
import type { Result } from "../../shared/errors";
import type { LeaseGrant, LockState, ReleaseOutcome } from "../../shared/schemas/lock";

export interface LockTarget {
  readonly key: string;
  readonly identity: string | null;
  acquire(holder: string, ttlMs: number, wait: boolean, waitTimeoutMs: number): Promise<Result<LeaseGrant>>;
  renew(holder: string, token: number): Promise<Result<LeaseGrant>>;
  release(holder: string, token: number): Promise<Result<ReleaseOutcome>>;
}

export function lockStub(env: Env, key: string) {
  return env.LEASE_LOCK.get(env.LEASE_LOCK.idFromName(key));
}

export function lockTarget(env: Env, key: string, identity: string | null = null): LockTarget {
  const stub = lockStub(env, key);
  return {
    key,
    identity,
    acquire: (holder, ttlMs, wait, waitTimeoutMs) =>
      stub.acquire({ key, holder, ttlMs, identity, wait, waitTimeoutMs }) as Promise<Result<LeaseGrant>>,
    renew: (holder, token) => stub.renew({ key, holder, token }) as Promise<Result<LeaseGrant>>,
    release: (holder, token) => stub.release({ key, holder, token }) as Promise<Result<ReleaseOutcome>>,
  };
}

export function readLock(env: Env, key: string): Promise<LockState> {
  return lockStub(env, key).read({ key }) as Promise<LockState>;
}
