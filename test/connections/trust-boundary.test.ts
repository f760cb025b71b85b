/**
 * The plan is untrusted: it names a connection and gives item params, nothing else. Each refusal
 * below is made before any lease and before any outbound request — every test counts the requests
 * at the provider transport and expects none (or only the configured connection's host).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, observedApp, testApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import {
  APP_CLIENT,
  auth0Connection,
  previewPlan,
  SECRET_NAME,
  seedTenant,
  TEST_M2M,
} from "../helpers/plans";
import { bearer } from "../helpers/tokens";

async function problem(res: Response) {
  return (await res.json()) as { status: number; code: string; detail: string; rule?: string };
}

/** The exfiltration attempt of the old plan format: the service's own signing key, sent anywhere. */
const exfiltrationPlan = {
  version: 1,
  providers: {
    auth0: {
      type: "auth0",
      domain: "attacker.example.com",
      clientId: "x",
      clientSecret: { secret: "SERVICE_SIGNING_KEY" },
    },
  },
  lines: [
    {
      id: "callback",
      op: "auth0.callbackUrl",
      provider: "auth0",
      params: { client: "app", url: "https://{scope}.preview.example.com/cb" },
    },
  ],
};

describe("the plan cannot choose a credential or where it is sent", () => {
  it.each(["preview", "apply"])(
    "%s of a plan naming SERVICE_SIGNING_KEY for a foreign host: 400 VALIDATION, no outbound request",
    async (action) => {
      const { app, hosts } = observedApp();
      const scope = freshPr();
      const res = await call(app, "POST", `/v1/scopes/preview/${scope}/${action}`, {
        plan: exfiltrationPlan,
      });
      expect(res.status).toBe(400);
      const body = await problem(res);
      expect(body.code).toBe("VALIDATION");
      expect(body.detail).toContain("SPONSON_CONNECTIONS");
      expect(hosts).toEqual([]);
      expect((await receipt("preview", scope)).runs).toEqual([]);
    },
  );

  it("a line that tries to pass a host in its params is refused by the op's params: no outbound request", async () => {
    const { app, hosts } = observedApp();
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const plan = previewPlan(domain);
    plan.lines = [
      {
        id: "callback",
        op: "auth0.callbackUrl",
        connection: auth0Connection(domain),
        params: { client: APP_CLIENT, url: "https://x.preview.example.com/", domain: "attacker.example.com" },
      },
    ];
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/preview`, { plan });
    expect(res.status).toBe(400);
    expect((await problem(res)).code).toBe("VALIDATION");
    expect(hosts).toEqual([]);
  });

  it("a line naming a connection the service does not define: 400 naming the usable ones, no outbound request", async () => {
    const { app, hosts } = observedApp();
    const plan = {
      version: 2,
      lines: [
        {
          id: "a",
          op: "auth0.callbackUrl",
          connection: "attacker",
          params: { client: "c", url: "https://a.example.com" },
        },
      ],
    };
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, { plan });
    expect(res.status).toBe(400);
    const body = await problem(res);
    expect(body.detail).toContain('unknown connection "attacker"');
    expect(hosts).toEqual([]);
  });

  it("an old plan with an unused provider block is refused whole: no token exchange for it or anything", async () => {
    const { app, hosts } = observedApp();
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const plan = {
      ...previewPlan(domain),
      providers: { unused: { type: "auth0", domain: "attacker.example.com" } },
    };
    const res = await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, { plan });
    expect(res.status).toBe(400);
    expect(hosts).toEqual([]);
  });

  it("an old-format plan is told how to migrate", async () => {
    const res = await call(testApp(), "POST", `/v1/scopes/preview/${freshPr()}/apply`, {
      plan: exfiltrationPlan,
    });
    const body = await problem(res);
    expect(body.detail).toContain("plans no longer carry provider blocks or secret references");
    expect(body.detail).toContain("version: 2");
    expect(body.detail).not.toContain("attacker.example.com");
  });

  it("only the connections a plan's lines use are prepared: a configured but unused connection gets no token exchange", async () => {
    const { app, hosts } = observedApp();
    const used = freshAuth0Domain();
    const unused = freshAuth0Domain();
    await seedTenant(used);
    await seedTenant(unused);
    auth0Connection(unused);
    const scope = freshPr();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, { plan: previewPlan(used) });
    expect(res.status).toBe(200);
    expect(new Set(hosts)).toEqual(new Set([used]));
    expect((await auth0Client(used, APP_CLIENT))?.callbacks).toEqual([
      `https://${scope}.preview.example.com/callback`,
    ]);
  });
});

describe("connections are allowed per environment, for preview as for apply", () => {
  it.each(["preview", "apply"])(
    "%s with a connection not allowed in the environment: 403 connection.environments, no outbound request",
    async (action) => {
      const { app, hosts } = observedApp();
      const domain = freshAuth0Domain();
      await seedTenant(domain);
      const plan = previewPlan(domain);
      registerConnection(plan.lines[0]?.connection as string, {
        type: "auth0",
        environments: ["production"],
        config: { domain, clientId: TEST_M2M.clientId },
        secrets: { clientSecret: SECRET_NAME },
      });
      const scope = freshPr();
      const res = await call(app, "POST", `/v1/scopes/preview/${scope}/${action}`, { plan });
      expect(res.status).toBe(403);
      const body = await problem(res);
      expect(body.code).toBe("FORBIDDEN");
      expect(body.rule).toBe("connection.environments");
      expect(hosts).toEqual([]);
      expect((await receipt("preview", scope)).runs).toEqual([]);
    },
  );

  it("preview obeys the write policy: an item outside it is 403 before any outbound request", async () => {
    const { app, hosts } = observedApp();
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const policy = JSON.stringify({
      version: 1,
      environments: {
        preview: { parents: ["auth0:*:client:*"], items: ["https://*.allowed.example.com/*"] },
      },
    });
    const res = await call(
      app,
      "POST",
      `/v1/scopes/preview/${freshPr()}/preview`,
      { plan: previewPlan(domain) },
      await bearer("admin"),
      { ...env, SPONSON_POLICY: policy },
    );
    expect(res.status).toBe(403);
    expect((await problem(res)).rule).toBe("policy.environments.preview.items");
    expect(hosts).toEqual([]);
  });
});

describe("the service's own secrets belong to no connection", () => {
  it.each([
    "SERVICE_SIGNING_KEY",
    "GITHUB_WEBHOOK_SECRET",
    "SPONSON_POLICY",
    "NOTIFY_QUEUE",
    "RUN_ANALYTICS",
    "TOKEN_BROKER",
    "BUDGET_BUCKET",
    "FEDERATION_SIGNING_KEY",
  ])(
    "a connection configured with %s is refused at load: the run answers 500 naming SPONSON_CONNECTIONS, no outbound request",
    async (secret) => {
      const { app, hosts } = observedApp();
      const domain = freshAuth0Domain();
      await seedTenant(domain);
      const connections = JSON.stringify({
        evil: {
          type: "auth0",
          environments: ["preview"],
          config: { domain, clientId: "x" },
          secrets: { clientSecret: secret },
        },
      });
      const plan = {
        version: 2,
        lines: [
          {
            id: "a",
            op: "auth0.callbackUrl",
            connection: "evil",
            params: { client: APP_CLIENT, url: "https://a.preview.example.com" },
          },
        ],
      };
      const res = await call(
        app,
        "POST",
        `/v1/scopes/preview/${freshPr()}/preview`,
        { plan },
        await bearer("admin"),
        {
          ...env,
          SPONSON_CONNECTIONS: connections,
        },
      );
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(text).toContain("SPONSON_CONNECTIONS is not valid: evil.secrets.clientSecret");
      expect(text).not.toContain(String(env.SERVICE_SIGNING_KEY));
      expect(hosts).toEqual([]);
    },
  );
});
