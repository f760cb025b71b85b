/**
 * The Worker's handle on one lock object, per role: the object's RPC interfaces (shared/rpc/
 * lease-lock.ts) with the lock's key and identity bound, a plain object with one call per method
 * (docs/design.md, "Lease protocol"). A target is typed by the interfaces its role may call
 * (`ScopeLeaseTarget`, `ParentLeaseTarget`, `LockAdminTarget`): a scope lease has no `changeOwners`
 * to call, so calling it is a compile error, not a convention.
 */
import type { Env } from "../../shared/env";
import type {
  LeaseApi,
  LeaseLockApi,
  LegacyScopeApi,
  LockAdminApi,
  ParentLockApi,
} from "../../shared/rpc/lease-lock";
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

/** The calls of the interfaces `Api` (one or several of shared/rpc/lease-lock.ts). */
export type LockCalls<Api extends Partial<LeaseLockApi> = LeaseLockApi> = {
  [M in keyof Api & LockMethod]: LockCall<M>;
};

/** A lock object as a role may call it; the whole object (every role's calls) by default. */
export type LockTarget<Api extends Partial<LeaseLockApi> = LeaseLockApi> = Bound & LockCalls<Api>;

/** A lease of either kind: what the lease client (lease.ts, acquire-loop.ts) calls. */
export type LeaseTarget = LockTarget<LeaseApi>;
/** A scope lease: the lease, and (upgrading only) the drain of what 0.1.x kept. */
export type ScopeLeaseTarget = LockTarget<LeaseApi & LegacyScopeApi>;
/** A parent lease: the lease, write combining, ownership and recent writes. */
export type ParentLeaseTarget = LockTarget<LeaseApi & ParentLockApi>;
/** Views, admins and the sweep. */
export type LockAdminTarget = LockTarget<LockAdminApi>;

/**
 * Every method of the object's interfaces, once, by role: the compiler refuses this table when a
 * method is added to an interface and not here, so every target, the metered wrapper and the
 * tests' scripts cover it (a plain object: no Proxy on the client path, which the bench's CPU
 * profile showed).
 */
const METHODS: { [M in LockMethod]: "lease" | "legacy" | "parent" | "admin" } = {
  acquire: "lease",
  claim: "lease",
  renew: "lease",
  release: "lease",
  waiting: "lease",
  drainLegacyIntents: "legacy",
  acquireOrCombine: "parent",
  takeQueued: "parent",
  reportCombined: "parent",
  owners: "parent",
  changeOwners: "parent",
  recentWrites: "parent",
  peekRecentWrites: "parent",
  rememberWrites: "parent",
  read: "admin",
  hold: "admin",
  unhold: "admin",
  forceRelease: "admin",
  ownership: "admin",
  nearCapacity: "admin",
  unclaimNearCapacity: "admin",
  confirmNearCapacity: "admin",
};
export const LOCK_METHODS = Object.keys(METHODS) as readonly LockMethod[];

/** The methods of one role's interface (the type tests count them). */
export function methodsOf(role: (typeof METHODS)[LockMethod]): LockMethod[] {
  return LOCK_METHODS.filter((m) => METHODS[m] === role);
}

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
