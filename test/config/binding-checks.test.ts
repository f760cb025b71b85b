/**
 * The config report on who writes through each connection (docs/design.md, "Objects belong to
 * repositories"): with several repositories, a connection that names none takes no writes — a
 * problem, in `GET /v1/config/status` and on the dashboard's panel as in `config check`; a name
 * SPONSON_REPOSITORIES does not list is a problem; two connections of one type bound to different
 * repositories, one naming no objects, are a warning. With one repository nothing is said.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ConfigStatus } from "../../shared/schemas/config-status";
import { checkConfig } from "../../workers/config/config-report";
import { ConfigPanel } from "../../workers/dashboard/config-panel";
import { call, testApp } from "../helpers/app";
import { auth0, vars } from "../helpers/config-vars";
import { bearer } from "../helpers/tokens";

const WEB = { name: "acme/web", id: 4242 };
const API = { name: "acme/api", id: 4343 };

const report = (v: Record<string, unknown>) => checkConfig(v, { secretsKnown: false });
const about = (paths: { path: string }[]) => paths.filter((p) => p.path.startsWith("SPONSON_CONNECTIONS"));

describe("config check: connections and repositories", () => {
  it("two repositories, a connection naming none: a problem at its repositories, the connection invalid", () => {
    const result = report(vars([WEB, API], { "auth0-preview": auth0() }));
    expect(result.valid).toBe(false);
    expect(about(result.problems)).toEqual([
      {
        path: "SPONSON_CONNECTIONS.auth0-preview.repositories",
        message: expect.stringMatching(
          /names no repository, and 2 are configured \(acme\/web, acme\/api\).*no writes/,
        ),
      },
    ]);
    expect(result.connections).toEqual([
      expect.objectContaining({ name: "auth0-preview", repositories: [], valid: false }),
    ]);
  });

  it('controls: one repository needs no field; "*" and a configured name are fine', () => {
    expect(about(report(vars([WEB], { "auth0-preview": auth0() })).problems)).toEqual([]);
    const bound = report(
      vars([WEB, API], {
        "auth0-web": auth0({ repositories: ["ACME/web"], parents: ["auth0:acme.us.auth0.com:client:web"] }),
        "auth0-shared": auth0({ repositories: "*" }),
      }),
    );
    expect(about(bound.problems)).toEqual([]);
    // Only the shared lists' word (shared-list-share.test.ts): nothing on who writes through them.
    expect(bound.warnings.filter((w) => !w.path.endsWith(".capacity"))).toEqual([]);
    expect(bound.connections.map((c) => [c.name, c.repositories, c.valid])).toEqual([
      ["auth0-web", ["ACME/web"], true],
      ["auth0-shared", ["*"], true],
    ]);
  });

  it("a name SPONSON_REPOSITORIES does not list is a problem, even with one repository", () => {
    const result = report(vars([WEB], { "auth0-preview": auth0({ repositories: ["acme/wbe"] }) }));
    expect(about(result.problems)).toEqual([
      {
        path: "SPONSON_CONNECTIONS.auth0-preview.repositories.0",
        message: "acme/wbe is not in SPONSON_REPOSITORIES (configured: acme/web)",
      },
    ]);
  });

  it("two connections of one type bound to different repositories, one naming no objects: a warning; still valid", () => {
    const result = report(
      vars([WEB, API], {
        "auth0-web": auth0({ repositories: [WEB.name] }),
        "auth0-api": auth0({ repositories: [API.name], parents: ["auth0:acme.us.auth0.com:client:api"] }),
      }),
    );
    expect(about(result.problems)).toEqual([]);
    expect(result.warnings).toEqual([
      {
        path: "SPONSON_CONNECTIONS.auth0-web.parents",
        message: expect.stringMatching(/bound to acme\/web and names no objects.*"auth0-api".*acme\/api/),
      },
    ]);
  });
});

describe("GET /v1/config/status and the dashboard's panel", () => {
  const bindings = {
    ...env,
    ...vars([WEB, API], {
      "auth0-unbound": auth0(),
      "auth0-web": auth0({ repositories: [WEB.name] }),
    }),
  } as typeof env;

  it("the status answers the unbound connection as a problem, with whom each connection serves", async () => {
    const res = await call(testApp(), "GET", "/v1/config/status", undefined, await bearer("admin"), bindings);
    expect(res.status).toBe(200);
    const body = (await res.json()) as ConfigStatus;
    expect(body.valid).toBe(false);
    expect(body.problems).toContainEqual({
      path: "SPONSON_CONNECTIONS.auth0-unbound.repositories",
      message: expect.stringContaining("names no repository"),
    });
    expect(body.connections.find((c) => c.name === "auth0-unbound")).toMatchObject({
      repositories: [],
      valid: false,
    });
    expect(body.connections.find((c) => c.name === "auth0-web")).toMatchObject({
      repositories: [WEB.name],
      valid: true,
    });
  });

  it("the panel marks the connection and counts it", () => {
    const html = String(ConfigPanel({ report: report(bindings as unknown as Record<string, unknown>) }));
    expect(html).toMatch(/<tr data-connection="auth0-unbound" data-unbound="true">/);
    expect(html).toContain("none named: takes no writes");
    expect(html).toContain("1 bound to no repository");
    expect(html).toMatch(/<tr data-connection="auth0-web">.*acme\/web/s);
    expect(html).toContain("SPONSON_CONNECTIONS.auth0-unbound.repositories");
  });
});
