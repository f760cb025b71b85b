/**
 * GET /v1/config/status (admin): the deployed Worker's own configuration report. It answers while
 * the configuration is broken (every other authenticated route then answers 500) — as long as the
 * admin can still authenticate, i.e. the vars authentication reads parse — lists every
 * problem at once with its path, and names vars and secrets without ever showing a value.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ConfigStatus } from "../../shared/schemas/config-status";
import { call, testApp } from "../helpers/app";
import { bearer } from "../helpers/tokens";

const app = testApp();

const broken = {
  ...env,
  SPONSON_POLICY: "{ not json",
  SPONSON_ENVIRONMENTS: JSON.stringify(["preview", "Not An Environment"]),
  SPONSON_CONNECTIONS: JSON.stringify({
    "auth0-preview": {
      type: "auth0",
      environments: ["preview"],
      config: { domain: "acme.us.auth0.com" },
      secrets: { clientSecret: "AUTH0_PREVIEW_SECRET" },
    },
    "mystery-preview": { type: "mystery", environments: ["preview"] },
  }),
};

async function status(bindings = env, role: "admin" | "viewer" = "admin") {
  const res = await call(app, "GET", "/v1/config/status", undefined, await bearer(role), bindings);
  return { res, body: (await res.json()) as ConfigStatus & { code?: string } };
}

describe("the configuration report", () => {
  it("the test deployment's connection has its secret, and every var is listed by name", async () => {
    const { res, body } = await status();
    expect(res.status).toBe(200);
    expect(body.connections).toContainEqual(
      expect.objectContaining({ name: "auth0-background.us.auth0.com", missingSecrets: [], valid: true }),
    );
    expect(body.vars.map((v) => v.name)).toEqual(
      expect.arrayContaining([
        "SPONSON_POLICY",
        "SPONSON_CONNECTIONS",
        "SERVICE_SIGNING_KEY",
        "SPONSON_AUDIENCE",
      ]),
    );
    expect(body.vars.find((v) => v.name === "SERVICE_SIGNING_KEY")).toEqual({
      name: "SERVICE_SIGNING_KEY",
      set: true,
      valid: true,
    });
  });

  it("a broken configuration: every problem with its path, while other routes answer 500", async () => {
    const locks = await call(app, "GET", "/v1/locks", undefined, {}, broken);
    expect(locks.status).toBe(500);
    const { res, body } = await status(broken);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.valid).toBe(false);
    const paths = body.problems.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "SPONSON_POLICY",
        "SPONSON_ENVIRONMENTS.1",
        "SPONSON_CONNECTIONS.auth0-preview.secrets",
        "SPONSON_CONNECTIONS.auth0-preview.config.clientId",
        "SPONSON_CONNECTIONS.mystery-preview.type",
      ]),
    );
    expect(body.connections.find((c) => c.name === "auth0-preview")?.missingSecrets).toEqual([
      "AUTH0_PREVIEW_SECRET",
    ]);
  });

  it("names, never values: no secret of the Worker appears in the report", async () => {
    const { body } = await status(broken);
    const text = JSON.stringify(body);
    expect(text).not.toContain(env.AUTH0_CLIENT_SECRET as string);
    expect(text).not.toContain(JSON.parse(env.SERVICE_SIGNING_KEY as string).d);
    expect(text).not.toContain(env.GITHUB_WEBHOOK_SECRET as string);
  });

  it("an environment's opt-out of a URL shape rule is recorded; every rule holds elsewhere", async () => {
    const policy = {
      version: 1,
      environments: {
        preview: {
          parents: ["*"],
          items: ["*"],
          urlChecks: { plainHttp: false, publicSuffixWildcard: true },
        },
        staging: {
          parents: ["*"],
          items: ["*"],
          urlChecks: { publicSuffixWildcard: false, plainHttp: false },
        },
        production: { parents: ["*"], items: ["*"] },
      },
    };
    const { body: optedOut } = await status({ ...env, SPONSON_POLICY: JSON.stringify(policy) });
    expect(optedOut.urlCheckOptOuts).toEqual([
      { environment: "preview", rules: ["plainHttp"] },
      { environment: "staging", rules: ["publicSuffixWildcard", "plainHttp"] },
    ]);
    const { body: none } = await status();
    expect(none.urlCheckOptOuts).toEqual([]);
  });

  it("is for admins: a viewer is refused", async () => {
    const { res, body } = await status(env, "viewer");
    expect(res.status).toBe(403);
    expect(body.code).toBe("FORBIDDEN");
  });
});
