/**
 * The GitHub issuer's key set is fetched from `<issuer>/.well-known/jwks` and cached for the
 * isolate; an unreachable key set is the issuer's fault (502), never a silent pass.
 */
import { describe, expect, it } from "vitest";
import { createDevApp } from "../../dev/entry/dev-app";
import { githubIssuer, pullRequestClaims } from "../helpers/tokens";
import { problem, securityEnv, send } from "./harness";

describe("the GitHub key set", () => {
  it("is fetched once and reused for later requests", async () => {
    const issuer = await githubIssuer();
    const app = createDevApp({ auth: { fetch: issuer.fetch } });
    for (const n of [1, 2, 3]) {
      const res = await send(app, "GET", "/v1/locks", { token: await issuer.mint(pullRequestClaims(n)) });
      expect(res.status).toBe(200);
    }
    expect(issuer.fetches()).toBe(1);
  });

  it("is fetched from a GitHub Enterprise Server issuer when GITHUB_OIDC_ISSUER names one", async () => {
    const ghes = await githubIssuer("https://github.acme.internal/_services/token");
    const app = createDevApp({ auth: { fetch: ghes.fetch } });
    const env = securityEnv({ GITHUB_OIDC_ISSUER: ghes.issuer });
    const res = await send(app, "GET", "/v1/locks", { token: await ghes.mint(pullRequestClaims(1)), env });
    expect(res.status).toBe(200);
    expect(ghes.fetches()).toBe(1);
  });

  it("a github.com token is refused by a service configured for an Enterprise issuer", async () => {
    const dotcom = await githubIssuer();
    const app = createDevApp({ auth: { fetch: dotcom.fetch } });
    const env = securityEnv({ GITHUB_OIDC_ISSUER: "https://github.acme.internal/_services/token" });
    const res = await send(app, "GET", "/v1/locks", { token: await dotcom.mint(pullRequestClaims(1)), env });
    expect(res.status).toBe(401);
    expect((await problem(res)).reason).toBe("issuer");
  });

  it("an unreachable key set answers 502, retriable, and lets no token through", async () => {
    const issuer = await githubIssuer();
    const down = (async () => new Response("unavailable", { status: 503 })) as unknown as typeof fetch;
    const app = createDevApp({ auth: { fetch: down } });
    const res = await send(app, "GET", "/v1/locks", { token: await issuer.mint(pullRequestClaims(1)) });
    expect(res.status).toBe(502);
    expect((await problem(res)).code).toBe("PROVIDER_ERROR");
  });
});
