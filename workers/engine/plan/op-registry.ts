/** Every op by name, and the adapter (config schema) that owns it. */
import type { OpSpec, ProviderAdapter } from "../../adapters/op-spec";

export class OpRegistry {
  readonly #ops = new Map<string, OpSpec>();
  readonly #adapters = new Map<string, ProviderAdapter>();

  constructor(adapters: readonly ProviderAdapter[]) {
    for (const adapter of adapters) {
      this.#adapters.set(adapter.type, adapter);
      for (const op of adapter.ops) this.#ops.set(op.name, op);
    }
  }

  get(name: string): OpSpec | undefined {
    return this.#ops.get(name);
  }

  adapter(type: string): ProviderAdapter | undefined {
    return this.#adapters.get(type);
  }

  names(): string[] {
    return [...this.#ops.keys()].sort();
  }
}
