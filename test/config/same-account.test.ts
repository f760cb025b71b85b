/**
 * The config report names connections of one type that may reach one provider account under two
 * names (docs/configuration.md, "One account, one name"): their runs would lock one object under
 * two identities and lose each other's entries. Spellings of one host are one identity already
 * (shared/canonical-identity.ts) and are not reported; what only the provider knows is: an Auth0
 * custom domain beside a `*.auth0.com` domain (a problem when the custom one's `audience` names the
 * other's tenant, a warning when it may), an Okta custom domain beside an Okta domain, an Entra
 * tenant named by a domain beside another name.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ConfigStatus } from "../../shared/schemas/config-status";
import { checkConfig } from "../../workers/config/config-report";
import { call, testApp } from "../helpers/app";
import { bearer } from "../helpers/tokens";

const auth0 = (config: Record<string, string>) => ({
  type: "auth0",
  environments: ["preview"],
  config: { clientId: "m2m", ...config },
  secrets: { clientSecret: "AUTH0_CLIENT_SECRET" },
});
const entra = (tenant: string) => ({
  type: "entra",
  environments: ["preview"],
  config: { tenant, clientId: "00000000-0000-0000-0000-000000000001" },
  secrets: { clientSecret: "ENTRA_CLIENT_SECRET" },
});
const okta = (domain: string) => ({
  type: "okta",
  environments: ["preview"],
  config: { domain },
  secrets: { apiToken: "OKTA_API_TOKEN" },
});
const keycloak = (host: string) => ({
  type: "keycloak",
  environments: ["preview"],
  config: { host, realm: "previews", clientId: "sponson" },
  secrets: { clientSecret: "KEYCLOAK_CLIENT_SECRET" },
});

function report(connections: Record<string, unknown>) {
  return checkConfig({ SPONSON_CONNECTIONS: JSON.stringify(connections) }, { secretsKnown: false });
}
const about = (items: { path: string; message: string }[]) =>
  items.filter(
    (p) => p.path.startsWith("SPONSON_CONNECTIONS") && /same (tenant|org|directory)/.test(p.message),
  );

describe("config check: connections that may reach one account", () => {
  it("an Auth0 custom domain whose audience names the other connection's tenant: a problem naming both", () => {
    const { problems, valid } = report({
      login: auth0({ domain: "login.acme.com", audience: "https://acme.us.auth0.com/api/v2/" }),
      tenant: auth0({ domain: "acme.us.auth0.com" }),
    });
    expect(valid).toBe(false);
    expect(about(problems)).toEqual([
      {
        path: "SPONSON_CONNECTIONS.tenant.config.domain",
        message: expect.stringMatching(/login.*tenant.*same tenant acme\.us\.auth0\.com.*two locks/),
      },
    ]);
  });

  it("an Auth0 custom domain without audience beside a *.auth0.com domain: a warning, may be the same tenant", () => {
    const { problems, warnings } = report({
      login: auth0({ domain: "login.acme.com" }),
      tenant: auth0({ domain: "acme.us.auth0.com" }),
    });
    expect(about(problems)).toEqual([]);
    expect(about(warnings)).toEqual([
      {
        path: "SPONSON_CONNECTIONS.tenant.config.domain",
        message: expect.stringMatching(/may be the same tenant/),
      },
    ]);
  });

  it("an Entra tenant named by a domain beside one named by its id: may be the same directory", () => {
    const { warnings } = report({
      byDomain: entra("contoso.onmicrosoft.com"),
      byId: entra("72f988bf-86f1-41af-91ab-2d7cd011db47"),
    });
    expect(about(warnings)).toEqual([
      {
        path: "SPONSON_CONNECTIONS.byId.config.tenant",
        message: expect.stringMatching(/may be the same directory.*GUID/),
      },
    ]);
  });

  it("an Okta custom domain beside an okta.com org: may be the same org", () => {
    const { warnings } = report({ custom: okta("login.acme.com"), org: okta("acme.okta.com") });
    expect(about(warnings).map((w) => w.path)).toEqual(["SPONSON_CONNECTIONS.org.config.domain"]);
  });

  it("controls: two spellings of one host, two *.auth0.com tenants, two tenant GUIDs say nothing", () => {
    const quiet = report({
      plain: keycloak("kc.acme.com"),
      port: keycloak("KC.acme.com:443"),
      a: auth0({ domain: "acme.us.auth0.com" }),
      b: auth0({ domain: "acme-dev.us.auth0.com" }),
      c: auth0({ domain: "login.other.com", audience: "https://other.eu.auth0.com/api/v2/" }),
      x: entra("72f988bf-86f1-41af-91ab-2d7cd011db47"),
      y: entra("11111111-2222-3333-4444-555555555555"),
    });
    expect(about(quiet.problems)).toEqual([]);
    expect(about(quiet.warnings)).toEqual([]);
  });

  it("GET /v1/config/status answers the same problem", async () => {
    const bindings = {
      ...env,
      SPONSON_CONNECTIONS: JSON.stringify({
        login: auth0({ domain: "login.acme.com", audience: "https://acme.us.auth0.com/api/v2/" }),
        tenant: auth0({ domain: "acme.us.auth0.com" }),
      }),
    } as typeof env;
    const res = await call(testApp(), "GET", "/v1/config/status", undefined, await bearer("admin"), bindings);
    const body = (await res.json()) as ConfigStatus;
    expect(about(body.problems).map((p) => p.path)).toEqual(["SPONSON_CONNECTIONS.tenant.config.domain"]);
  });
});
