/**
 * A connection's provider budget as `config check` sees it (docs/design.md, "Write budgets"): the
 * one in force — the connection's `budget`, else the one its adapter documents — and a problem
 * where a connection sets one for a provider that documents none (the service would not know
 * which of its calls the provider counts).
 */
import type { BudgetRate } from "../../shared/rpc/budget-bucket";
import type { ProviderAdapter } from "../adapters/op-spec";

export interface BudgetInForce extends BudgetRate {
  /** What the provider counts: every call to its management API, or its writes. */
  counts: "calls" | "writes";
  /** "configured", or the provider's documented default it comes from. */
  from: string;
}

export function budgetInForce(
  configured: BudgetRate | undefined,
  adapter: ProviderAdapter,
): BudgetInForce | undefined {
  const spec = adapter.budget;
  if (!spec) return undefined;
  const rate = configured ?? spec.rate;
  return {
    burst: rate.burst,
    perSecond: rate.perSecond,
    counts: spec.counts,
    from: configured ? "configured" : spec.source,
  };
}

export function budgetProblems(
  configured: BudgetRate | undefined,
  adapter: ProviderAdapter,
  documented: readonly ProviderAdapter[],
): string[] {
  if (configured === undefined || adapter.budget) return [];
  const types = documented.filter((a) => a.budget).map((a) => a.type);
  return [
    `provider type "${adapter.type}" documents no budget, so none can be set; budgets exist for ${types.join(", ")}`,
  ];
}
