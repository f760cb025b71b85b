/**
 * The URL shape check reads an item's host as a browser does (docs/design.md, "Security model"):
 * `https://*.ｖｅｒｃｅｌ.app/cb` (fullwidth letters), a soft hyphen or a zero-width space inside the
 * host, and `https:/…` or `https:…` without both slashes all reach a browser as `*.vercel.app`.
 * Each is refused (403, rule `urlChecks.hostAsWritten`) before any lease and any outbound
 * request, and judged by the other rules on the host a browser reads; a wildcard under a domain
 * the operator owns, written as a browser reads it, still goes through.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import { CLIENT, keycloakRealm } from "../adapters/keycloak/keycloak-realm";
import { call, observedApp } from "../helpers/app";
import { connectionOf } from "../helpers/connections";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { auth0Plan, seedTenant } from "../helpers/plans";
import { bearer } from "../helpers/tokens";

interface Refusal {
  code: string;
  refused: { line: string; op: string; item: string; rule: string; message: string }[];
}

async function send(action: string, plan: Plan, secrets: Record<string, string> = {}) {
  const { app, hosts } = observedApp();
  const scope = freshPr();
  const res = await call(
    app,
    "POST",
    `/v1/scopes/preview/${scope}/${action}`,
    { plan },
    await bearer("admin"),
    { ...env, ...secrets },
  );
  return { res, hosts, scope };
}

async function auth0PlanOf(urls: string[]): Promise<Plan> {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  return auth0Plan(
    domain,
    urls.map((url, i) => ({ id: `line-${i}`, op: "auth0.callbackUrl", url })),
  );
}

let realms = 0;
async function keycloakPlanOf(urls: string[]) {
  const k = await keycloakRealm({ redirectUris: ["https://app.example.com/callback"] });
  realms += 1;
  const connection = connectionOf(`url-shape-host-keycloak-${realms}`, {
    type: "keycloak",
    host: k.host,
    realm: "previews",
    clientId: "sponson",
    clientSecret: { secret: "URL_SHAPE_KEYCLOAK_SECRET" },
  });
  const plan: Plan = {
    version: 2,
    lines: urls.map((url, i) => ({
      id: `line-${i}`,
      op: "keycloak.redirectUri",
      connection,
      params: { client: CLIENT, url },
    })),
  };
  return { plan, secrets: { URL_SHAPE_KEYCLOAK_SECRET: k.secret } };
}

/** Hosts a browser reads as `*.vercel.app`, written otherwise. */
const DISGUISED = [
  "https://*.\uff56\uff45\uff52\uff43\uff45\uff4c.app/cb",
  "https://*.ver\u00adcel.app/cb",
  "https://*.ver\u200bcel.app/cb",
];

describe("a host written otherwise than a browser reads it", () => {
  it("the control: https://*.vercel.app/cb is refused as a wildcard over a public suffix", async () => {
    const { res } = await send("preview", await auth0PlanOf(["https://*.vercel.app/cb"]));
    expect(res.status).toBe(403);
    expect(((await res.json()) as Refusal).refused.map((r) => r.rule)).toEqual([
      "urlChecks.publicSuffixWildcard",
    ]);
  });

  it.each(["preview", "apply"])(
    "%s: fullwidth letters, a soft hyphen, a zero-width space are refused (403) before any outbound request",
    async (action) => {
      const { res, hosts, scope } = await send(action, await auth0PlanOf(DISGUISED));
      const body = (await res.json()) as Refusal;
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(body.code).toBe("FORBIDDEN");
      expect(body.refused.map((r) => [r.line, r.rule])).toEqual(
        DISGUISED.flatMap((_, i) => [
          [`line-${i}`, "urlChecks.hostAsWritten"],
          [`line-${i}`, "urlChecks.publicSuffixWildcard"],
        ]),
      );
      expect(body.refused[0]?.message).toContain('"*.vercel.app"');
      expect(hosts).toEqual([]);
      expect((await receipt("preview", scope)).runs).toEqual([]);
    },
  );

  it("https:/ and https: without both slashes are refused; the same op with https:// goes through", async () => {
    const missing = await keycloakPlanOf(["https:/*.vercel.app", "https:*.vercel.app"]);
    const refused = await send("apply", missing.plan, missing.secrets);
    const body = (await refused.res.json()) as Refusal;
    expect(refused.res.status, JSON.stringify(body)).toBe(403);
    expect(body.refused.map((r) => [r.line, r.rule])).toEqual([
      ["line-0", "urlChecks.hostAsWritten"],
      ["line-0", "urlChecks.publicSuffixWildcard"],
      ["line-1", "urlChecks.hostAsWritten"],
      ["line-1", "urlChecks.publicSuffixWildcard"],
    ]);
    expect(body.refused[0]?.message).toContain("https://");
    expect(refused.hosts).toEqual([]);

    // Keycloak takes no wildcard in a host: the control is a concrete URL.
    const slashed = await keycloakPlanOf(["https://pr-1.preview.example.com/callback"]);
    const allowed = await send("apply", slashed.plan, slashed.secrets);
    const run = (await allowed.res.json()) as RunResult;
    expect(allowed.res.status, JSON.stringify(run)).toBe(200);
    expect(run.run.status).toBe("succeeded");
  });

  it("a wildcard under an owned domain, and an international name written in punycode, go through", async () => {
    const { res } = await send(
      "apply",
      await auth0PlanOf(["https://*.preview.example.com/callback", "https://pr-1.xn--bcher-kva.example/cb"]),
    );
    const run = (await res.json()) as RunResult;
    expect(res.status, JSON.stringify(run)).toBe(200);
    expect(run.run.status).toBe("succeeded");
  });
});
