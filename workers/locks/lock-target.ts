/**
 * The Worker's handle on one lock object: the object's own RPC interface (shared/rpc/lease-lock.ts,
 * `LeaseLockApi`) with the lock's key and identity bound. Nothing here names a method: a method
 * declared on the interface (and implemented by the object) is callable through every target, the
 * client-side lease and the metered and scripted wrappers with no edit here (docs/design.md, "Lease
 * protocol").
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
 * A target whose every call goes through `call`, with the key and identity added to its request
 * (the object reads `identity` only where a request declares it). Like the RPC stub itself, any
 * method name is a call; `then` is not, so a target can be returned from an async function.
 */
export function boundTarget(
  bound: Bound,
  call: <M extends LockMethod>(method: M, req: RequestOf<M>) => ReturnType<LeaseLockApi[M]>,
): LockTarget {
  return new Proxy({ key: bound.key, identity: bound.identity } as LockTarget, {
    get(target, prop) {
      if (prop === "key" || prop === "identity") return target[prop];
      if (typeof prop !== "string" || prop === "then") return undefined;
      const method = prop as LockMethod;
      return (req: object) =>
        call(method, { key: bound.key, identity: bound.identity, ...req } as RequestOf<typeof method>);
    },
  });
}

/** The same lock object with some of its calls made another way (a wrapper, a test's script). */
export function overriding(target: LockTarget, overrides: Partial<LockCalls>): LockTarget {
  return new Proxy(target, {
    get(inner, prop) {
      const own = typeof prop === "string" ? overrides[prop as LockMethod] : undefined;
      return own ?? Reflect.get(inner, prop);
    },
  });
}

export function lockStub(env: Env, key: string): LeaseLockApi {
  return rpcStub(env.LEASE_LOCK, key);
}

export function lockTarget(env: Env, key: string, identity: string | null = null): LockTarget {
  // A stub per call: a stub whose object was reset keeps failing, and the client re-joins after a reset.
  return boundTarget({ key, identity }, (method, req) => {
    const stub = lockStub(env, key) as unknown as Record<
      LockMethod,
      (req: unknown) => ReturnType<LeaseLockApi[typeof method]>
    >;
    return stub[method](req);
  });
}

export function readLock(env: Env, key: string): Promise<LockState> {
  return lockStub(env, key).read({ key });
}
