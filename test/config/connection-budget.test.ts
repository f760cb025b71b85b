/**
 * A connection's provider budget in the config report (docs/configuration.md, "Provider budgets";
 * docs/design.md, "Write budgets"): the one in force is shown for every connection whose provider
 * has one — the connection's own `budget`, else the documented default and where it comes from —
 * and a budget set where the provider documents none, or one that is not a budget, is a problem.
 */
import { describe, expect, it } from "vitest";
import { checkConfig } from "../../workers/config/config-report";

const auth0 = (more: Record<string, unknown> = {}) => ({
  type: "auth0",
  environments: ["preview"],
  config: { domain: "acme.us.auth0.com", clientId: "m2m" },
  secrets: { clientSecret: "AUTH0_CLIENT_SECRET" },
  ...more,
});
const kinde = (more: Record<string, unknown> = {}) => ({
  type: "kinde",
  environments: ["preview"],
  config: { domain: "acme.kinde.com", clientId: "m2m" },
  secrets: { clientSecret: "KINDE_CLIENT_SECRET" },
  ...more,
});

function report(connections: Record<string, unknown>) {
  return checkConfig({ SPONSON_CONNECTIONS: JSON.stringify(connections) }, { secretsKnown: false });
}
const budgetProblems = (r: ReturnType<typeof report>) => r.problems.filter((p) => p.path.includes(".budget"));

describe("config check: provider budgets", () => {
  it("a connection without `budget` shows its provider's documented default and its source", () => {
    const r = report({ tenant: auth0() });
    expect(r.connections[0]?.budget).toEqual({
      burst: 2,
      perSecond: 2,
      counts: "calls",
      from: expect.stringMatching(/Auth0 Free/),
    });
    expect(budgetProblems(r)).toEqual([]);
  });

  it("a connection's own `budget` replaces the default: a paid tenant's 10 at once, 150 a minute", () => {
    const r = report({ tenant: auth0({ budget: { burst: 10, perSecond: 2.5 } }) });
    expect(r.connections[0]?.budget).toEqual({
      burst: 10,
      perSecond: 2.5,
      counts: "calls",
      from: "configured",
    });
    expect(budgetProblems(r)).toEqual([]);
  });

  it("a provider with no documented budget shows none, and setting one is a problem naming those that have one", () => {
    expect(report({ k: kinde() }).connections[0]?.budget).toBeUndefined();
    const r = report({ k: kinde({ budget: { burst: 5, perSecond: 1 } }) });
    expect(budgetProblems(r)).toEqual([
      {
        path: "SPONSON_CONNECTIONS.k.budget",
        message: expect.stringMatching(/"kinde" documents no budget.*auth0/),
      },
    ]);
  });

  it("a budget that is not one (no burst, a rate of 0, an unknown field) is refused by the schema", () => {
    for (const budget of [
      { perSecond: 2 },
      { burst: 2, perSecond: 0 },
      { burst: 2, perSecond: 2, window: 60 },
    ]) {
      const r = report({ tenant: auth0({ budget }) });
      expect(budgetProblems(r).length, JSON.stringify(budget)).toBeGreaterThan(0);
    }
  });
});
