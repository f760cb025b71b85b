/**
 * Eviction takes only scopes whose own environment set `evictStale` (docs/design.md, "Evicting
 * stale scopes"): a preview run short of room never evicts a production scope that merely has not
 * deployed for a while, though that environment's `staleAfterDays` makes it idle.
 */
import { describe, expect, it } from "vitest";
import { freshPr } from "../../helpers/engine";
import { ageRuns, applyRequest, cappedOrigins, origin, receiptOf } from "../../helpers/eviction";
import { testEngine } from "../../helpers/test-engine";

const environments = (productionEvicts: boolean) =>
  JSON.stringify([
    { name: "preview", staleAfterDays: 7, evictStale: true },
    { name: "production", staleAfterDays: 7, ...(productionEvicts ? { evictStale: true } : {}) },
  ]);

async function idleProductionScope(name: string, productionEvicts: boolean) {
  const list = await cappedOrigins(name, 2);
  const engine = () => testEngine({ bindings: { SPONSON_ENVIRONMENTS: environments(productionEvicts) } });
  const [production, live, next] = [freshPr(), freshPr(), freshPr()];
  const inProduction = { ...applyRequest(list.plan, production), environment: "production" };
  expect((await engine().apply(inProduction)).run.status).toBe("succeeded");
  expect((await engine().apply(applyRequest(list.plan, live))).run.status).toBe("succeeded");
  await ageRuns(production, 30, "production");
  const result = await engine().apply(applyRequest(list.plan, next));
  return { ...list, production, live, next, result };
}

describe("eviction and the stale scope's own environment", () => {
  it("a production scope idle 30 days, production without evictStale: a preview run is refused LIST_FULL, nothing evicted", async () => {
    const { result, origins, production, live } = await idleProductionScope("ev-prod", false);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect([...(await origins())].sort()).toEqual([origin(production), origin(live)].sort());
    expect((await receiptOf(production, "production")).evictions).toBeUndefined();
  });

  it("control: production with evictStale too: its idle scope is evicted for the preview run", async () => {
    const { result, origins, production, live, next } = await idleProductionScope("ev-prod-evicts", true);
    expect(result.run.status).toBe("succeeded");
    expect([...(await origins())].sort()).toEqual([origin(live), origin(next)].sort());
    expect((await receiptOf(production, "production")).evictions).toMatchObject([{ reason: "idle" }]);
  });
});
