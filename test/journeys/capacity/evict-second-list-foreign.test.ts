/**
 * Eviction with two lists full, only one of which it can free (docs/design.md, "Evicting stale
 * scopes"; "Lists at their cap"): nothing is evicted, and the refusal names the list that still
 * does not fit, with that list's owners and advice, not the list eviction could have freed.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { registerConnection } from "../../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { freshPr } from "../../helpers/engine";
import { applyRequest, evictingEngine, origin, scopeLockFree, setPullRequest } from "../../helpers/eviction";
import { APP_CLIENT, SECRET_NAME, TEST_M2M } from "../../helpers/plans";

describe("eviction when a second full list holds only foreign entries", () => {
  it("web origins freeable, callbacks full of foreign URLs: refused LIST_FULL naming the callbacks, nothing evicted", async () => {
    const domain = freshAuth0Domain("ev-foreign2");
    const foreign = ["https://f1.example.com/cb", "https://f2.example.com/cb"];
    await seedAuth0Tenant(domain, {
      m2m: TEST_M2M,
      clients: { [APP_CLIENT]: { web_origins: [], callbacks: foreign } },
    });
    const connection = registerConnection(`auth0-ev-foreign2-${domain}`, {
      type: "auth0",
      config: { domain, clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
      capacity: { "auth0.webOrigin": 2, "auth0.callbackUrl": 2 },
    });
    const originLine = {
      id: "origin",
      op: "auth0.webOrigin",
      connection,
      params: { client: APP_CLIENT, url: "https://{scope}.preview.example.com" },
    };
    const callbackLine = {
      id: "callback",
      op: "auth0.callbackUrl",
      connection,
      params: { client: APP_CLIENT, url: "https://{scope}.preview.example.com/callback" },
    };
    const originOnly: Plan = { version: 2, lines: [originLine] };
    const both: Plan = { version: 2, lines: [originLine, callbackLine] };
    const [closed, live, next] = [freshPr(), freshPr(), freshPr()];
    for (const s of [closed, live])
      expect((await evictingEngine().apply(applyRequest(originOnly, s))).run.status).toBe("succeeded");
    await setPullRequest(closed, "closed");

    const result = await evictingEngine().apply(applyRequest(both, next));
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({
      list: { op: "auth0.callbackUrl" },
      cap: 2,
      entries: 2,
      after: 3,
      foreign: 2,
      scopes: [],
    });
    // No advice to destroy the closed scope: its destroy would not make this run fit.
    const detail = result.run.error?.detail as { freeRoom?: string[] };
    expect(detail.freeRoom ?? []).toEqual([]);
    expect(result.run.error?.message).not.toContain(closed);
    // Nothing evicted, nothing written, the closed scope's lease given back.
    const client = await auth0Client(domain, APP_CLIENT);
    expect([...(client?.web_origins ?? [])].sort()).toEqual([origin(closed), origin(live)].sort());
    expect(client?.callbacks).toEqual(foreign);
    expect(await scopeLockFree(closed)).toBe(true);
  });
});
