/**
 * A call the tenant's budget allows only after the lease's deadline is not sent (docs/design.md,
 * "Write budgets"): the run fails 503 BUDGET_EXHAUSTED with Retry-After, its write never reached
 * the provider, and nothing of it is left on the application.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import { call, runOf, testApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { auth0Client, emulatorStub, freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { APP_CLIENT, SECRET_NAME, seedTenant, TEST_M2M } from "../helpers/plans";

describe("a budget that allows the write only after the lease's deadline", () => {
  it("the run fails 503 BUDGET_EXHAUSTED with Retry-After, and the write was never sent", async () => {
    const domain = freshAuth0Domain("spent");
    await seedTenant(domain);
    // One call at once, then one every 1000 s: the read passes, the write would wait far past the lease.
    const connection = registerConnection(`auth0-spent-${domain}`, {
      type: "auth0",
      config: { domain, clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
      budget: { burst: 1, perSecond: 0.001 },
    });
    const plan: Plan = {
      version: 2,
      lines: [
        {
          id: "callback",
          op: "auth0.callbackUrl",
          connection,
          params: { client: APP_CLIENT, url: "https://{scope}.preview.example.com/callback" },
        },
      ],
    };
    const app = testApp({ engine: { sharedBudgets: true } });
    const before = await emulatorStub(domain).stats();
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, { plan });
    const result = await runOf(res, "apply");
    expect(res.status).toBe(503);
    expect(result.run.status).toBe("failed");
    const error = result.lines[0]?.error;
    expect(error?.code).toBe("BUDGET_EXHAUSTED");
    expect(error?.detail).toMatchObject({ sent: false, budget: { burst: 1, perSecond: 0.001 } });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(900);
    const after = await emulatorStub(domain).stats();
    expect(after.writes - before.writes).toBe(0);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual([]);
  });
});
