/**
 * A run's view of the engine's shared deps, recording into that run's metrics: the provider
 * transport, the lock targets (acquire time split into scope and parent waits), the receipt store,
 * the scope state and the waits for a provider's budget. The engine makes one per run, so concurrent runs of one Engine never mix
 * their numbers; the writers below it use these deps unchanged.
 */

import { eachCall, type LockCall, type LockMethod, type LockTarget } from "../../locks/lock-target";
import type { ReceiptStore } from "../../receipts/receipt-store";
import type { EngineDeps, LockProvider, ScopeGate } from "../deps";
import type { RunMetrics, TimingKind } from "./run-metrics";

/** Lock-object calls that take the lock: what a run waits in. Every other call is only counted. */
const ACQUIRING = new Set<LockMethod>(["acquire", "acquireOrCombine", "claim"]);

export function meteredDeps(deps: EngineDeps, metrics: RunMetrics): EngineDeps {
  return {
    ...deps,
    fetch: meteredFetch(deps.fetch, metrics),
    locks: meteredLocks(deps.locks, metrics),
    store: meteredStore(deps.store, metrics),
    ...(deps.budgets ? { budgets: meteredBudgets(deps.budgets, metrics) } : {}),
    ...(deps.gate ? { gate: meteredGate(deps.gate, metrics) } : {}),
  };
}

export function meteredFetch(inner: typeof fetch, metrics: RunMetrics): typeof fetch {
  return (input, init) => {
    metrics.count("providerCalls");
    return metrics.time("provider", () => inner(input, init));
  };
}

/** Waits for a provider's budget are the run's `budgetWait` (docs/design.md, "Write budgets"). */
function meteredBudgets(
  inner: NonNullable<EngineDeps["budgets"]>,
  metrics: RunMetrics,
): NonNullable<EngineDeps["budgets"]> {
  return (connection) => {
    const door = inner(connection);
    return {
      object: (name) => door.object(name),
      waiting: (wait) => metrics.time("budgetWait", () => (door.waiting ? door.waiting(wait) : wait())),
    };
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
 * interface later (the target's calls are built from the interface's one method table).
 */
function meteredTarget(
  target: LockTarget,
  wait: Extract<TimingKind, "scopeLockWait" | "parentLockWait">,
  metrics: RunMetrics,
): LockTarget {
  const calls = eachCall((method) => {
    const inner = target[method] as (req: unknown) => Promise<unknown>;
    const acquiring = ACQUIRING.has(method);
    const asks = method === "acquire" || method === "acquireOrCombine";
    const metered = (req: unknown) => {
      metrics.count("lockOps");
      if (asks) metrics.leaseAsked(target.key);
      return acquiring ? metrics.timeLockWait(target.key, wait, () => inner(req)) : inner(req);
    };
    return metered as unknown as LockCall<typeof method>;
  });
  return { key: target.key, identity: target.identity, ...calls };
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
