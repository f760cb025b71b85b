/**
 * A cap set by the operator (docs/adapters.md, "Capacity"): a connection's `capacity` lowers an
 * op's documented cap, or sets one where the provider documents none; `config check` refuses one
 * above the documented cap, an op of another provider, and an op with no list.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { checkConfig } from "../../../workers/config/config-report";
import { registerConnection } from "../../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { APP_CLIENT, SECRET_NAME, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

describe("a configured capacity", () => {
  it("lowers the cap: callbacks (no documented cap) set to 2 refuse the third before any write", async () => {
    const domain = freshAuth0Domain("capcfg");
    const kept = ["https://a.example.com/cb", "https://b.example.com/cb"];
    await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients: { [APP_CLIENT]: { callbacks: kept } } });
    const connection = registerConnection(`auth0-capped-${domain}`, {
      type: "auth0",
      config: { domain, clientId: TEST_M2M.clientId },
      secrets: { clientSecret: SECRET_NAME },
      capacity: { "auth0.callbackUrl": 2 },
    });
    const plan: Plan = {
      version: 2,
      lines: [
        {
          id: "cb",
          op: "auth0.callbackUrl",
          connection,
          params: { client: APP_CLIENT, url: "https://{scope}.preview.example.com/cb" },
        },
      ],
    };
    const requests: string[] = [];
    const result = await testEngine({ requests }).apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope: `pr-${Math.floor(Math.random() * 1e6)}`,
      plan,
      wait: true,
      waitTimeoutMs: 30_000,
    });
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({ cap: 2, entries: 2, after: 3 });
    expect(requests.filter((r) => r.startsWith("PATCH "))).toEqual([]);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual(kept);
  });

  it("config check refuses a cap above the documented one, another provider's op and an op without a list", () => {
    const report = checkConfig(
      {
        SPONSON_CONNECTIONS: JSON.stringify({
          tenant: {
            type: "auth0",
            environments: ["preview"],
            config: { domain: "t.example.com", clientId: "x" },
            secrets: { clientSecret: "AUTH0_SECRET" },
            capacity: { "auth0.webOrigin": 101, "auth0.logoutUrl": 50, "cognito.callbackUrl": 5 },
          },
        }),
      },
      { secretsKnown: false },
    );
    const capacity = report.problems.filter((p) => p.path.includes(".capacity"));
    expect(capacity.map((p) => p.path).sort()).toEqual([
      "SPONSON_CONNECTIONS.tenant.capacity.auth0.webOrigin",
      "SPONSON_CONNECTIONS.tenant.capacity.cognito.callbackUrl",
    ]);
    expect(capacity.find((p) => p.path.endsWith("webOrigin"))?.message).toMatch(
      /above .*documented cap of 100/,
    );
  });
});

describe('a configured share (docs/design.md, "A share of each list")', () => {
  const report = (capacity: Record<string, unknown>) =>
    checkConfig(
      {
        SPONSON_CONNECTIONS: JSON.stringify({
          tenant: {
            type: "auth0",
            environments: ["preview"],
            config: { domain: "t.example.com", clientId: "x" },
            secrets: { clientSecret: "AUTH0_SECRET" },
            capacity,
          },
        }),
      },
      { secretsKnown: false },
    ).problems.filter((p) => p.path.includes("capacity"));

  it("the cap alone (a number) and the cap with its shares (an object) are both accepted", () => {
    expect(
      report({
        "auth0.logoutUrl": 50,
        "auth0.webOrigin": { maxEntries: 60, maxEntriesPerScope: 5, maxEntriesPerRepository: 30 },
        "auth0.callbackUrl": { maxEntriesPerRepository: 40 },
      }),
    ).toEqual([]);
  });

  it("config check refuses a scope's share above its repository's, and a share above the list's cap", () => {
    const problems = report({
      "auth0.webOrigin": { maxEntriesPerScope: 20, maxEntriesPerRepository: 10 },
      "auth0.allowedOrigin": { maxEntries: 5, maxEntriesPerRepository: 6 },
    });
    const text = problems.map((p) => `${p.path}: ${p.message}`).join("\n");
    expect(text).toMatch(/webOrigin\.maxEntriesPerScope: 20 is above maxEntriesPerRepository \(10\)/);
    expect(text).toMatch(/allowedOrigin\.maxEntriesPerRepository: 6 is above maxEntries \(5\)/);
    // Past the schema: a share above the provider's documented cap would never bind.
    const above = report({ "auth0.logoutUrl": { maxEntriesPerScope: 101 } });
    expect(above.map((p) => `${p.path}: ${p.message}`)).toEqual([
      "SPONSON_CONNECTIONS.tenant.capacity.auth0.logoutUrl: maxEntriesPerScope 101 is above the provider's documented cap of 100: it would never bind",
    ]);
  });
});
