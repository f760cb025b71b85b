/** docs/design.md, "Lease protocol": no token exchange is made while the run holds a lease. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { clearTokenCache } from "../../workers/adapters/http";
import { lockStub } from "../../workers/locks/lock-target";
import { apply, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { appLockKey, freshPr } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";

describe("remote calls and leases", () => {
  it("the Auth0 token is fetched before the scope lease is taken, never under a lease", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const scopeKey = `scope:186853002/preview/${scope}`;
    const parentKey = await appLockKey(domain);
    clearTokenCache();
    const tokenCalls: Array<{ scopeHeld: boolean; parentHeld: boolean }> = [];
    const app = testApp({
      engine: {
        wrapFetch: (inner) => async (input, init) => {
          const url = new Request(input, init).url;
          if (url.endsWith("/oauth/token")) {
            tokenCalls.push({
              scopeHeld: (await lockStub(env, scopeKey).read({ key: scopeKey })).held,
              parentHeld: (await lockStub(env, parentKey).read({ key: parentKey })).held,
            });
          }
          return inner(input, init);
        },
      },
    });
    const result = await apply(app, "preview", scope, previewPlan(domain));
    expect(result.run.status).toBe("succeeded");
    expect(tokenCalls).toEqual([{ scopeHeld: false, parentHeld: false }]);
  });
});
