import { describe, expect, it } from "vitest";
import { freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { call, token } from "./auth0-api";
import { FIXTURES, type Fixture, TENANT } from "./fixtures";

async function tenant() {
  const domain = freshAuth0Domain("fx");
  await seedAuth0Tenant(domain, { m2m: TENANT.m2m, clients: { [TENANT.app.id]: TENANT.app.seed } });
  await seedAuth0Tenant(domain, { m2m: TENANT.readOnly, clients: {} });
  return domain;
}

async function send(domain: string, fixture: Fixture): Promise<Response> {
  const headers: Record<string, string> = {};
  if (fixture.auth === "full") {
    headers.authorization = `Bearer ${await token(domain, TENANT.m2m.clientId, TENANT.m2m.clientSecret)}`;
  } else if (fixture.auth === "read-only") {
    headers.authorization = `Bearer ${await token(domain, TENANT.readOnly.clientId, TENANT.readOnly.clientSecret)}`;
  } else if (fixture.auth === "invalid") {
    headers.authorization = "Bearer eyJhbGciOiJSUzI1NiJ9.made-up.token";
  }
  let body: string | undefined;
  const fill = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll("{domain}", domain));
  if (fixture.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(fill(fixture.json));
  } else if (fixture.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(fill(fixture.form)).toString();
  }
  return call(`https://${domain}${fixture.path}`, { method: fixture.method, headers, body });
}

describe("Auth0 emulator answers Auth0's documented exchanges", () => {
  for (const fixture of FIXTURES) {
    it(`${fixture.name}: ${fixture.method} ${fixture.path.split("?")[0]} → ${fixture.status}`, async () => {
      const domain = await tenant();
      const res = await send(domain, fixture);
      expect(res.status).toBe(fixture.status);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(fixture.body);
      // Rate-limit headers on every answer; the reset is a UNIX time in seconds, within the next second.
      expect(res.headers.get("x-ratelimit-limit")).toBe("50");
      expect(Number(res.headers.get("x-ratelimit-remaining"))).toBeGreaterThanOrEqual(0);
      const reset = Number(res.headers.get("x-ratelimit-reset"));
      expect(reset).toBeGreaterThan(Date.now() / 1000 - 5);
      expect(reset).toBeLessThan(Date.now() / 1000 + 5);
    });
  }
});
