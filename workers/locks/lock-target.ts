/**
 * The Worker's handle on one lock object: the object's own RPC interface (shared/rpc/lease-lock.ts,
 * `LeaseLockApi`) with the lock's key and identity bound: a plain object with one call per method
 * of the interface (docs/design.md, "Lease protocol").
 */
import type { Env } from "../../shared/env";
import type { LeaseLockApi } from "../../shared/rpc/lease-lock";
import { rpcStub } from "../../shared/rpc/stub";
import type { LockState } from "../../shared/schemas/lock";

export type LockMethod = keyof LeaseLockApi;

/** What a target binds into every request: the lock it is for. */
interface Bound {
  readonly key: string;
  readonly identity: string | null;
}

type RequestOf<M extends LockMethod> = Parameters<LeaseLockApi[M]>[0];

/** One of the object's methods, with the bound fields left out of its request. */
export type LockCall<M extends LockMethod> = (
  req: Omit<RequestOf<M>, keyof Bound>,
) => ReturnType<LeaseLockApi[M]>;

export type LockCalls = { [M in LockMethod]: LockCall<M> };

export type LockTarget = Bound & LockCalls;

/**
 * Every method of the object's interface, once: the compiler refuses this table when a method is
 * added to `LeaseLockApi` and not here, so every target, the metered wrapper and the tests' scripts
 * cover it (a plain object: no Proxy on the client path, which the bench's CPU profile showed).
 */
const METHODS: Record<LockMethod, true> = {
  acquire: true,
  claim: true,
  renew: true,
  release: true,
  drainLegacyIntents: true,
  forceRelease: true,
  waiting: true,
  read: true,
  hold: true,
  unhold: true,
  owners: true,
  changeOwners: true,
  ownership: true,
  acquireOrCombine: true,
  takeQueued: true,
  reportCombined: true,
  recentWrites: true,
  peekRecentWrites: true,
  rememberWrites: true,
  nearCapacity: true,
  unclaimNearCapacity: true,
  confirmNearCapacity: true,
};
export const LOCK_METHODS = Object.keys(METHODS) as readonly LockMethod[];

/**
 * Builds a target's calls, one per method of the interface, each made by `make(method)`: the
 * targets below and the wrappers (metering, tests' scripts) all build theirs this way.
 */
export function eachCall(make: <M extends LockMethod>(method: M) => LockCall<M>): LockCalls {
  const calls: Partial<Record<LockMethod, unknown>> = {};
  for (const method of LOCK_METHODS) calls[method] = make(method);
  return calls as LockCalls;
}

/**
 * A target whose every call goes through `call`, with the key and identity added to its request
 * (the object reads `identity` only where a request declares it).
 */
export function boundTarget(
  bound: Bound,
  call: <M extends LockMethod>(method: M, req: RequestOf<M>) => ReturnType<LeaseLockApi[M]>,
): LockTarget {
  const calls = eachCall(
    (method) => (req) =>
      call(method, { key: bound.key, identity: bound.identity, ...req } as RequestOf<typeof method>),
  );
  return { key: bound.key, identity: bound.identity, ...calls };
}

/** The same lock object with some of its calls made another way (a wrapper, a test's script). */
export function overriding(target: LockTarget, overrides: Partial<LockCalls>): LockTarget {
  return { ...target, ...overrides };
}

export function lockStub(env: Env, key: string): LeaseLockApi {
  return rpcStub(env.LEASE_LOCK, key);
}

export function lockTarget(env: Env, key: string, identity: string | null = null): LockTarget {
  // The id once (deriving it hashes the name); a stub per call: a stub whose object was reset
  // keeps failing, and the client re-joins after a reset.
  const id = env.LEASE_LOCK.idFromName(key);
  return boundTarget({ key, identity }, (method, req) => {
    const stub = env.LEASE_LOCK.get(id) as unknown as Record<
      LockMethod,
      (req: unknown) => ReturnType<LeaseLockApi[typeof method]>
    >;
    return stub[method](req);
  });
}

export function readLock(env: Env, key: string): Promise<LockState> {
  return lockStub(env, key).read({ key });
}
