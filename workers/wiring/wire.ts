/**
 * The one place the engine is wired to the Worker's bindings. Where provider HTTP goes is chosen by
 * the Worker entry (workers/index.ts: the network; dev/entry/: the emulators), never by a var.
 * `EngineOverrides` exists for tests only: it is reachable through createApp's options, which no
 * configuration file can set.
 */

import { canonicalIdentity } from "../../shared/canonical-identity";
import { type Clock, systemClock } from "../../shared/clock";
import type { Env } from "../../shared/env";
import { parentLockKey, scopeLockKey } from "../../shared/lock-keys";
import { rpcStub } from "../../shared/rpc/stub";
import { tokenObjectName } from "../../shared/rpc/token-broker";
import { SecretRegistry } from "../../shared/secrets";
import { ADAPTERS } from "../adapters";
import type { SharedBudgets } from "../adapters/http/provider-budget";
import type { SharedTokens } from "../adapters/http/shared-tokens";
import type { IsolateTokenCache } from "../adapters/http/token-cache";
import { recordEviction } from "../audit/evictions";
import { registerAuthSecrets } from "../auth/service-keys";
import { configFromEnv } from "../config/config";
import { Connections } from "../connections/connections";
import { type EngineControls, PRODUCTION_CONTROLS } from "../engine/controls";
import type { EngineDeps, FaultHook, LockProvider, ScopeGate, WritePolicy } from "../engine/deps";
import type { Engine } from "../engine/engine";
import { OpRegistry } from "../engine/plan/op-registry";
import { ownedObjectIndex } from "../lock-views/owned-objects";
import { lockStub, lockTarget } from "../locks/lock-target";
import { ObservedEngine } from "../observe/observed-engine";
import { urlChecksOf } from "../policy/check-item-shapes";
import { assertWrite } from "../policy/check-write";
import type { PolicyConfig } from "../policy/policy-schema";
import { configuredReceiptStore } from "../receipts/configured-store";
import type { ReceiptStore } from "../receipts/receipt-store";
import { scopeStateClient } from "../scope-state/scope-state-client";

/**
 * Provider HTTP for a request's bindings; the entry that wires the engine passes it in. `emulated`
 * marks the dev entry's transport (dev/entry/dev-env.ts): only with it may `EMULATORS=on` open the
 * write policy, so the production entry, which always talks to the real providers, ignores the var.
 */
export type ProviderTransport = ((env: Env) => typeof fetch) & { readonly emulated?: true };

/** Production: the network. A closure, so the runtime's fetch is never called with another `this`. */
export const networkTransport: ProviderTransport = () => (input, init) => fetch(input, init);

/** A policy as the entry may use it: the open local policy only where every write is emulated. */
export function policyForTransport(policy: PolicyConfig, transport: ProviderTransport): PolicyConfig {
  if (policy.mode !== "open-dev" || transport.emulated === true) return policy;
  return { mode: "enforced", document: { version: 1, environments: {} } };
}

export interface EngineOverrides {
  /**
   * A control case: the protocol's mechanisms it switches off (workers/engine/controls.ts), each
   * named one replacing production's. Tests only.
   */
  controls?: Partial<EngineControls>;
  clock?: Clock;
  faults?: FaultHook;
  gate?: ScopeGate;
  policy?: WritePolicy;
  /** Forces write combining on or off in every environment (tests, the bench's two modes). */
  combining?: boolean;
  /** Wraps the provider transport (tests observe every provider request). */
  wrapFetch?: (inner: typeof fetch) => typeof fetch;
  /** Wraps the lock objects' provider (tests make one lock read fail). */
  wrapLocks?: (inner: LockProvider) => LockProvider;
  /** Wraps the receipt store (tests make one receipt read or write fail). */
  wrapStore?: (inner: ReceiptStore) => ReceiptStore;
  /** false: no fleet token objects, each isolate buys its own (the control of the token tests). */
  sharedTokens?: boolean;
  /** false: no budget objects, calls go as they come (the control of the budget tests and bench). */
  sharedBudgets?: boolean;
  /**
   * false: no isolate token cache, every lookup as on a fresh isolate; an IsolateTokenCache: the
   * engine's runs use that one, as if they ran on an isolate of their own (tests, the bench).
   */
  isolateTokenCache?: boolean | IsolateTokenCache;
  /** A recording stand-in for RUN_ANALYTICS (the local dataset drops every write). Tests only. */
  analytics?: AnalyticsEngineDataset;
}

const ops = new OpRegistry(ADAPTERS);

/** Env entries whose names say they are secrets are registered, so they can never leak. */
const SECRET_NAME = /(SECRET|KEY|TOKEN|PASSWORD)/;

export function secretsFromEnv(env: Env): SecretRegistry {
  const secrets = new SecretRegistry();
  for (const [name, value] of Object.entries(env)) {
    if (SECRET_NAME.test(name) && typeof value === "string") secrets.register(value);
  }
  registerAuthSecrets(secrets, env);
  return secrets;
}

/**
 * The scope's state object (docs/design.md, "Staleness recheck"): read before the scope lease and again
 * under it.
 */
function scopeStateGate(env: Env): ScopeGate {
  return { read: (repositoryId, scope) => scopeStateClient(env, repositoryId, scope).read() };
}

/** The service's own write policy (workers/policy), checked before any lock and under the lease. */
/** console.error with every secret the env holds redacted: for logs outside a run (the sweep). */
export function redactingErrorLog(env: Env): (message: string) => void {
  const secrets = secretsFromEnv(env);
  return (message) => console.error(secrets.redact(message));
}

function configuredPolicy(env: Env, secrets: SecretRegistry, transport: ProviderTransport): WritePolicy {
  const policy = policyForTransport(configFromEnv(env).policy, transport);
  return {
    check: ({ environment, op, identity, item }) =>
      assertWrite(policy, environment, { op, identity, item }, secrets),
  };
}

function durableLocks(env: Env, secrets: SecretRegistry): LockProvider {
  return {
    scope: (repositoryId, environment, scope) =>
      lockTarget(env, scopeLockKey(repositoryId, environment, scope)),
    parent: async (identity) => {
      // Named as its key is hashed: every spelling of the object's host is one lock.
      const canonical = canonicalIdentity(identity);
      return lockTarget(env, await parentLockKey(canonical, secrets), canonical);
    },
    holdsScope: async (repositoryId, environment, scope, holder) => {
      const key = scopeLockKey(repositoryId, environment, scope);
      const state = await lockStub(env, key).read({ key });
      return state.held && state.holder === holder;
    },
  };
}

/** The fleet's token objects (durable-objects/token-broker.ts), one per connection credential. */
function fleetTokens(env: Env): ((connection: string) => SharedTokens) | undefined {
  const namespace = env.TOKEN_BROKER;
  if (!namespace) return undefined;
  return (connection) => ({
    object: (fingerprint) => rpcStub(namespace, tokenObjectName(connection, fingerprint)),
  });
}

/** The fleet's budget objects (durable-objects/budget-bucket.ts), one per provider tenant. */
function fleetBudgets(env: Env): ((connection: string) => SharedBudgets) | undefined {
  const namespace = env.BUDGET_BUCKET;
  if (!namespace) return undefined;
  const door: SharedBudgets = { object: (name) => rpcStub(namespace, name) };
  return () => door;
}

export function createEngine(
  env: Env,
  transport: ProviderTransport,
  overrides: EngineOverrides = {},
): Engine {
  const deps = engineDeps(env, transport, overrides);
  // Every run logged once and written to Analytics Engine (docs/operations.md).
  return new ObservedEngine(deps, {
    secrets: deps.secrets,
    analytics: overrides.analytics ?? env.RUN_ANALYTICS,
  });
}

/** What the engine is given: the bindings' clients and the configuration, a test's overrides on top. */
export function engineDeps(
  env: Env,
  transport: ProviderTransport,
  overrides: EngineOverrides = {},
): EngineDeps {
  const config = configFromEnv(env);
  const secrets = secretsFromEnv(env);
  const providerFetch = transport(env);
  return {
    store: overrides.wrapStore
      ? overrides.wrapStore(configuredReceiptStore(env))
      : configuredReceiptStore(env),
    locks: overrides.wrapLocks ? overrides.wrapLocks(durableLocks(env, secrets)) : durableLocks(env, secrets),
    ops,
    connections: new Connections(
      config.connections,
      config.repositories.map((r) => r.name),
    ),
    vars: env,
    secrets,
    fetch: overrides.wrapFetch ? overrides.wrapFetch(providerFetch) : providerFetch,
    clock: overrides.clock ?? systemClock,
    tokens: overrides.sharedTokens === false ? undefined : fleetTokens(env),
    budgets: overrides.sharedBudgets === false ? undefined : fleetBudgets(env),
    isolateTokenCache: overrides.isolateTokenCache ?? true,
    ttlMs: config.leaseTtlSeconds * 1000,
    waitTimeoutMs: config.waitTimeoutSeconds * 1000,
    controls: overrides.controls ? { ...PRODUCTION_CONTROLS, ...overrides.controls } : PRODUCTION_CONTROLS,
    staleAfterDays: (environment) => config.environmentSettings[environment]?.staleAfterDays,
    evictStale: (environment) => config.environmentSettings[environment]?.evictStale === true,
    auditEviction: (record) => recordEviction(env, record),
    ...(config.recentWritesSeconds > 0 ? { recentWritesWindowMs: config.recentWritesSeconds * 1000 } : {}),
    combining: (environment) => overrides.combining ?? config.writeCombining[environment] ?? true,
    gate: overrides.gate ?? scopeStateGate(env),
    owned: ownedObjectIndex(env, secrets),
    policy: overrides.policy ?? configuredPolicy(env, secrets, transport),
    urlChecks: (environment) => urlChecksOf(policyForTransport(config.policy, transport), environment),
    ...(overrides.faults ? { faults: overrides.faults } : {}),
    warn: (m) => console.warn(secrets.redact(m)),
    logError: (m) => console.error(secrets.redact(m)),
  };
}
