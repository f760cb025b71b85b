/**
 * docs/design.md, "Federated connections": `sponson config check` names what would make every
 * exchange of a privateKeyJwt connection fail, before any request: incomplete fields, and a `kid`
 * the federation key ring holds no private key for.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { checkConfig } from "../../workers/config/config-report";

const KEY = env.FEDERATION_SIGNING_KEY as string;
const VARS = { SPONSON_PUBLIC_URL: "https://sponson.example.com", FEDERATION_SIGNING_KEY: KEY };

function report(privateKeyJwt: Record<string, string>, type = "auth0") {
  const config = type === "auth0" ? { domain: "acme.us.auth0.com" } : { domain: "acme.okta.com" };
  const connections = { "keyless-idp": { type, environments: ["preview"], config, privateKeyJwt } };
  const { problems } = checkConfig(
    { SPONSON_CONNECTIONS: JSON.stringify(connections), ...VARS },
    { secretsKnown: true },
  );
  return problems.filter((p) => /FEDERATION|PUBLIC_URL|keyless-idp/.test(p.path));
}

describe("config check: privateKeyJwt connections", () => {
  it("a complete Auth0 or Okta connection has no problem, with or without the current kid (control)", () => {
    expect(report({ clientId: "m2m" })).toEqual([]);
    expect(report({ clientId: "0oaservice" }, "okta")).toEqual([]);
    expect(report({ clientId: "m2m", kid: "test-federation-current" })).toEqual([]);
  });

  it("a missing clientId is named", () => {
    expect(report({}).map((p) => p.path)).toEqual(["SPONSON_CONNECTIONS.keyless-idp.privateKeyJwt.clientId"]);
  });

  it("a kid the ring holds no private key for (unknown, or retired) is named without any key material", () => {
    for (const kid of ["nobody", "test-federation-retired"]) {
      const problems = report({ clientId: "m2m", kid });
      expect(problems.map((p) => p.path)).toEqual(["SPONSON_CONNECTIONS.keyless-idp.privateKeyJwt.kid"]);
      expect(problems[0]?.message).toContain(kid);
      expect(JSON.stringify(problems)).not.toContain(JSON.parse(KEY).keys[1].d);
    }
  });
});
