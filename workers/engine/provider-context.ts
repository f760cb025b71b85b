/**
 * One OpContext per connection a run uses: the connection's settings with its credentials filled
 * from the Worker secrets its configuration names (every value registered, so it can never leak),
 * validated by the adapter's own config schema. Token exchanges (`prepare`) run before any lease.
 * Where the adapter documents a budget, the context carries the connection's share of the fleet's
 * budget objects: every counted call takes from its tenant's bucket (docs/design.md, "Write budgets").
 */
import type { Clock } from "../../shared/clock";
import { SponsonError } from "../../shared/errors";
import type { SecretRegistry } from "../../shared/secrets";
import { type SharedBudgets, TenantBudget } from "../adapters/http/provider-budget";
import type { SharedTokens } from "../adapters/http/shared-tokens";
import type { IsolateTokenCache } from "../adapters/http/token-cache";
import type { OpContext } from "../adapters/op-spec";
import type { Connections } from "../connections/connections";
import { federationAssertions, federationIssuer } from "../keys/federation";
import type { OpRegistry } from "./plan/op-registry";

export interface ProviderContextDeps {
  ops: OpRegistry;
  connections: Connections;
  secrets: SecretRegistry;
  /** Where the Worker secrets a connection names are read (the Worker's env). */
  vars: Record<string, unknown>;
  fetch: typeof fetch;
  clock: Clock;
  /** The fleet's token objects, per connection name; absent: each isolate buys its own. */
  tokens?: (connection: string) => SharedTokens;
  /** false: no isolate token cache; an instance: that one instead (tests and the bench only). */
  isolateTokenCache?: boolean | IsolateTokenCache;
  /** The fleet's budget objects, per connection name; absent: calls go as they come. */
  budgets?: (connection: string) => SharedBudgets;
  /** How long a wait for budget may last outside a lease until the run's deadline is known. */
  waitTimeoutMs: number;
}

export class ProviderContexts {
  readonly #deps: ProviderContextDeps;
  readonly #cache = new Map<string, OpContext>();
  /** The run's own deadline (its wait deadline, once it asks for its first lock). */
  #runDeadline: () => number;

  constructor(deps: ProviderContextDeps) {
    this.#deps = deps;
    const until = deps.clock.now() + deps.waitTimeoutMs;
    this.#runDeadline = () => until;
  }

  /**
   * The run's one wait deadline (docs/design.md, "Lease protocol"): a wait for budget outside a
   * lease ends there, as every wait of the run does; under a lease, the lease's deadline comes first.
   */
  waitUntil(deadline: { at: number }): void {
    this.#runDeadline = () => deadline.at;
  }

  /** Runs each adapter's `prepare` (token exchanges) for these connections; call before any lease. */
  async prepare(connections: Iterable<string>): Promise<void> {
    for (const name of new Set(connections)) {
      const ctx = this.get(name);
      const type = ctx.config.type;
      if (typeof type !== "string") continue;
      try {
        await this.#deps.ops.adapter(type)?.prepare?.(ctx);
      } catch (err) {
        throw this.#deps.connections.federated(name) ? namingConnection(err, name) : err;
      }
    }
  }

  get(name: string): OpContext {
    const cached = this.#cache.get(name);
    if (cached) return cached;
    const resolved = this.#deps.connections.credentials(name, this.#deps.vars, this.#deps.secrets);
    const type = String(resolved.type);
    const adapter = this.#deps.ops.adapter(type);
    if (!adapter) throw new SponsonError("INTERNAL", `connection "${name}": unknown provider type "${type}"`);
    const parsed = adapter.config.safeParse(resolved);
    if (!parsed.success) {
      // Messages name fields only: the values may be secrets.
      const fields = [...new Set(parsed.error.issues.map((i) => i.path.join(".")))].join(", ");
      throw new SponsonError("INTERNAL", `connection "${name}": invalid ${type} configuration (${fields})`);
    }
    const config = parsed.data as Record<string, unknown>;
    const door = adapter.budget && this.#deps.budgets?.(name);
    const ctx: OpContext = {
      config,
      fetch: this.#deps.fetch,
      clock: this.#deps.clock,
      secrets: this.#deps.secrets,
      ...(this.#deps.tokens ? { tokens: this.#deps.tokens(name) } : {}),
      ...(this.#deps.isolateTokenCache !== undefined ? { isolateCache: this.#deps.isolateTokenCache } : {}),
      ...(adapter.budget && door
        ? {
            budget: new TenantBudget({
              ...{ provider: type, connection: name, spec: adapter.budget, config, door },
              rate: this.#deps.connections.budgetOf(name) ?? adapter.budget.rate,
              clock: this.#deps.clock,
              runDeadline: () => this.#runDeadline(),
            }),
          }
        : {}),
      // Only a connection configured as federated can have tokens minted for it, and only its own.
      ...(this.#deps.connections.federated(name)
        ? {
            federation: federationAssertions(federationIssuer(this.#deps.vars), name, {
              secrets: this.#deps.secrets,
              nowMs: () => this.#deps.clock.now(),
            }),
          }
        : {}),
    };
    this.#cache.set(name, ctx);
    return ctx;
  }
}

/**
 * A federated exchange refused by the cloud names the connection whose trust is missing beside the
 * cloud's own code (docs/design.md, "Federated connections"): the operator fixes that one.
 */
function namingConnection(err: unknown, name: string): unknown {
  if (!(err instanceof SponsonError) || err.code !== "PROVIDER_ERROR") return err;
  // The token sources name it themselves where they can (Google's two steps, privateKeyJwt): once is enough.
  if (err.detail?.connection === name) return err;
  return new SponsonError(
    err.code,
    `connection "${name}": ${err.message}`,
    { ...(err.detail ?? {}), connection: name },
    { retriable: err.retriable },
  );
}
