/**
 * A connection's `capacity` as `config check` sees it (docs/design.md, "Lists at their cap", "A
 * share of each list"): each op named is one of the connection's provider, writes entries of a list
 * (a batch form), its cap is at most the provider's documented one (a cap is lowered by
 * configuration, and raised only up to a higher plan's documented cap: `higher`), and a share is
 * at most the list's cap (above it, it never binds).
 * The shares' own order (a scope's share within its repository's) is the schema's (list-limits.ts).
 */
import type { ProviderAdapter } from "../adapters/op-spec";
import { type CapacityEntry, limitsOf } from "./list-limits";

export interface CapacityProblem {
  op: string;
  message: string;
}

export function capacityProblems(
  capacity: Readonly<Record<string, CapacityEntry>> | undefined,
  adapter: ProviderAdapter,
): CapacityProblem[] {
  const problems: CapacityProblem[] = [];
  for (const [name, entry] of Object.entries(capacity ?? {})) {
    const op = adapter.ops.find((o) => o.name === name);
    const limits = limitsOf(entry);
    const cap = limits.maxEntries;
    if (!op) {
      const known = adapter.ops.map((o) => o.name).join(", ");
      problems.push({ op: name, message: `not an op of provider type "${adapter.type}"; its ops: ${known}` });
    } else if (!op.batch) {
      problems.push({ op: name, message: `${name} writes single entries, not a list: it has no capacity` });
    } else if (op.capacity && cap !== undefined && cap > (op.capacity.higher ?? op.capacity).maxEntries) {
      const { higher, maxEntries } = op.capacity;
      problems.push({
        op: name,
        message: higher
          ? `${cap} is above the provider's documented cap of ${maxEntries} (${higher.maxEntries} ${higher.when}): a cap can be raised to ${higher.maxEntries} at most`
          : `${cap} is above the provider's documented cap of ${maxEntries}: a cap can only be lowered`,
      });
    } else {
      const documented = op.capacity?.maxEntries;
      for (const field of ["maxEntriesPerScope", "maxEntriesPerRepository"] as const) {
        const share = limits[field];
        if (share !== undefined && cap === undefined && documented !== undefined && share > documented)
          problems.push({
            op: name,
            message: `${field} ${share} is above the provider's documented cap of ${documented}: it would never bind`,
          });
      }
    }
  }
  return problems;
}
