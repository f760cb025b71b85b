/**
 * A connection's `capacity` as `config check` sees it (docs/design.md, "Lists at their cap"): each
 * op named is one of the connection's provider, writes entries of a list (a batch form), and its
 * cap is at most the provider's documented one: a cap is lowered by configuration, never raised.
 */
import type { ProviderAdapter } from "../adapters/op-spec";

export interface CapacityProblem {
  op: string;
  message: string;
}

export function capacityProblems(
  capacity: Readonly<Record<string, number>> | undefined,
  adapter: ProviderAdapter,
): CapacityProblem[] {
  const problems: CapacityProblem[] = [];
  for (const [name, cap] of Object.entries(capacity ?? {})) {
    const op = adapter.ops.find((o) => o.name === name);
    if (!op) {
      const known = adapter.ops.map((o) => o.name).join(", ");
      problems.push({ op: name, message: `not an op of provider type "${adapter.type}"; its ops: ${known}` });
    } else if (!op.batch) {
      problems.push({ op: name, message: `${name} writes single entries, not a list: it has no capacity` });
    } else if (op.capacity && cap > op.capacity.maxEntries) {
      problems.push({
        op: name,
        message: `${cap} is above the provider's documented cap of ${op.capacity.maxEntries}: a cap can only be lowered`,
      });
    }
  }
  return problems;
}
