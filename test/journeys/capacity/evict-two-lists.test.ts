/**
 * Eviction for every full list of the object (docs/design.md, "Evicting stale scopes"): a run
 * whose changes take two lists of one client past their caps makes room in each, not only in the
 * first found full.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { registerConnection } from "../../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { freshPr } from "../../helpers/engine";
import {
  applyRequest,
  evictingEngine,
  origin,
  receiptOf,
  setPullRequest,
  twoAppliedScopes,
} from "../../helpers/eviction";
import { APP_CLIENT, SECRET_NAME, TEST_M2M } from "../../helpers/plans";

const callback = (scope: string) => `https://${scope}.preview.example.com/callback`;

describe("eviction with two lists at their caps", () => {
  it("web origins and callbacks both full, a closed scope holding one of each: both evicted and the run written", async () => {
    const domain = freshAuth0Domain("ev-two");
    await seedAuth0Tenant(domain, {
      m2m: TEST_M2M,
      clients: { [APP_CLIENT]: { web_origins: [], callbacks: [] } },
    });
    const connection = registerConnection(`auth0-ev-two-${domain}`, {
      type: "auth0",
      config: { domain, clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
      capacity: { "auth0.webOrigin": 2, "auth0.callbackUrl": 2 },
    });
    const plan: Plan = {
      version: 2,
      lines: [
        {
          id: "origin",
          op: "auth0.webOrigin",
          connection,
          params: { client: APP_CLIENT, url: "https://{scope}.preview.example.com" },
        },
        {
          id: "callback",
          op: "auth0.callbackUrl",
          connection,
          params: { client: APP_CLIENT, url: "https://{scope}.preview.example.com/callback" },
        },
      ],
    };
    const [closed, live] = await twoAppliedScopes(plan);
    const next = freshPr();
    await setPullRequest(closed, "closed");
    const result = await evictingEngine().apply(applyRequest(plan, next));
    expect(result.run.error?.code).toBeUndefined();
    expect(result.run.status).toBe("succeeded");
    const client = await auth0Client(domain, APP_CLIENT);
    expect([...(client?.web_origins ?? [])].sort()).toEqual([origin(live), origin(next)].sort());
    expect([...(client?.callbacks ?? [])].sort()).toEqual([callback(live), callback(next)].sort());
    const receipt = await receiptOf(closed);
    expect(receipt.ledger).toEqual([]);
    expect(receipt.evictions).toHaveLength(2);
    expect(receipt.evictions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ op: "auth0.webOrigin", keys: [origin(closed)] }),
        expect.objectContaining({ op: "auth0.callbackUrl", keys: [callback(closed)] }),
      ]),
    );
  });
});
