/**
 * A run's view of the engine's shared deps, recording into that run's metrics: the provider
 * transport, the lock targets (acquire time split into scope and parent waits), the receipt store
 * and the scope state. The engine makes one per run, so concurrent runs of one Engine never mix
 * their numbers; the writers below it use these deps unchanged.
 */

import type { LockTarget } from "../locks/lock-target";
import type { ReceiptStore } from "../receipts/receipt-store";
import type { EngineDeps, LockProvider, ScopeGate } from "./deps";
import type { RunMetrics, TimingKind } from "./run-metrics";

/** Lock-object calls that take the lock: what a run waits in. Every other call is only counted. */
const ACQUIRING = new Set<PropertyKey>(["acquire", "acquireOrCombine", "claim"]);

export function meteredDeps(deps: EngineDeps, metrics: RunMetrics): EngineDeps {
  return {
    ...deps,
    fetch: meteredFetch(deps.fetch, metrics),
    locks: meteredLocks(deps.locks, metrics),
    store: meteredStore(deps.store, metrics),
    ...(deps.gate ? { gate: meteredGate(deps.gate, metrics) } : {}),
  };
}

export function meteredFetch(inner: typeof fetch, metrics: RunMetrics): typeof fetch {
  return (input, init) => {
    metrics.count("providerCalls");
    return metrics.time("provider", () => inner(input, init));
  };
}

function meteredLocks(inner: LockProvider, metrics: RunMetrics): LockProvider {
  return {
    scope: (repositoryId, environment, scope) =>
      meteredTarget(inner.scope(repositoryId, environment, scope), "scopeLockWait", metrics),
    parent: async (identity) => meteredTarget(await inner.parent(identity), "parentLockWait", metrics),
    holdsScope: (...args) => {
      metrics.count("lockOps");
      return inner.holdsScope(...args);
    },
  };
}

/**
 * Every method of the target is counted as a lock operation, including ones added to the
 * interface later (a Proxy, not a list of today's methods).
 */
function meteredTarget(target: LockTarget, wait: TimingKind, metrics: RunMetrics): LockTarget {
  return new Proxy(target, {
    get(t, prop) {
      const value: unknown = Reflect.get(t, prop, t);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        metrics.count("lockOps");
        if (prop === "acquire" || prop === "acquireOrCombine") metrics.leaseAsked(t.key);
        const call = () => Promise.resolve(value.apply(t, args));
        return ACQUIRING.has(prop) ? metrics.time(wait, call) : call();
      };
    },
  });
}

function meteredStore(inner: ReceiptStore, metrics: RunMetrics): ReceiptStore {
  const read = <T>(fn: () => Promise<T>) => {
    metrics.count("storageReads");
    return metrics.time("storage", fn);
  };
  const write = <T>(fn: () => Promise<T>) => {
    metrics.count("storageWrites");
    return metrics.time("storage", fn);
  };
  return {
    read: (address) => read(() => inner.read(address)),
    listScopes: (filter) => read(() => inner.listScopes(filter)),
    write: (receipt, etag) => write(() => inner.write(receipt, etag)),
    remove: (address, etag) => write(() => inner.remove(address, etag)),
  };
}

function meteredGate(inner: ScopeGate, metrics: RunMetrics): ScopeGate {
  return {
    read: (repositoryId, scope) => {
      metrics.count("storageReads");
      return metrics.time("storage", () => inner.read(repositoryId, scope));
    },
  };
}
