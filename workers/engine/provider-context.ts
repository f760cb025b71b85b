/**
 * Resolves a provider block's secret references against the Worker's secrets, registers every
 * value, and validates the result with the adapter's own config schema. Resolution happens once per
 * run, before any lock is taken.
 */
import type { Clock } from "../../shared/clock";
import { SponsonError } from "../../shared/errors";
import type { ProviderConfig } from "../../shared/schemas/plan";
import type { SecretRegistry } from "../../shared/secrets";
import type { OpRegistry } from "./op-registry";
import type { OpContext } from "./op-spec";

export interface ProviderContextDeps {
  ops: OpRegistry;
  secrets: SecretRegistry;
  /** Where secret references are looked up (the Worker's env). */
  vars: Record<string, unknown>;
  fetch: typeof fetch;
  clock: Clock;
}

export function resolveProviderConfig(
  name: string,
  block: ProviderConfig,
  vars: Record<string, unknown>,
  secrets: SecretRegistry,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(block)) {
    if (typeof value === "object" && value !== null && "secret" in value) {
      const resolved = vars[value.secret];
      if (typeof resolved !== "string" || resolved.length === 0) {
        throw new SponsonError(
          "VALIDATION",
          `provider "${name}": secret ${value.secret} is not configured on the service (wrangler secret put ${value.secret})`,
        );
      }
      secrets.register(resolved);
      out[field] = resolved;
    } else {
      out[field] = value;
    }
  }
  return out;
}

/** One OpContext per provider block name, created on first use. */
export class ProviderContexts {
  readonly #deps: ProviderContextDeps;
  readonly #cache = new Map<string, OpContext>();

  constructor(deps: ProviderContextDeps) {
    this.#deps = deps;
  }

  /** Runs each adapter's `prepare` (token exchanges) for these blocks; call before any lease. */
  async prepare(blocks: Iterable<ProviderConfig>): Promise<void> {
    const seen = new Set<string>();
    for (const block of blocks) {
      const name = JSON.stringify(block);
      if (seen.has(name)) continue;
      seen.add(name);
      const ctx = this.get(name, block);
      await this.#deps.ops.adapter(block.type)?.prepare?.(ctx);
    }
  }

  get(name: string, block: ProviderConfig): OpContext {
    const cached = this.#cache.get(name);
    if (cached) return cached;
    const adapter = this.#deps.ops.adapter(block.type);
    if (!adapter)
      throw new SponsonError("VALIDATION", `provider "${name}": unknown provider type "${block.type}"`);
    const resolved = resolveProviderConfig(name, block, this.#deps.vars, this.#deps.secrets);
    const parsed = adapter.config.safeParse(resolved);
    if (!parsed.success) {
      // Messages name fields only: the values may be secrets.
      const fields = [...new Set(parsed.error.issues.map((i) => i.path.join(".")))].join(", ");
      throw new SponsonError(
        "VALIDATION",
        `provider "${name}": invalid ${block.type} configuration (${fields})`,
      );
    }
    const ctx: OpContext = {
      config: parsed.data as Record<string, unknown>,
      fetch: this.#deps.fetch,
      clock: this.#deps.clock,
      secrets: this.#deps.secrets,
    };
    this.#cache.set(name, ctx);
    return ctx;
  }
}
