/**
 * Knob `budget` on an Auth0 tenant (dev/emulators/budget.ts): the tenant's Management API budget
 * enforced as Auth0 documents it for the Free plan (burst 2, 2 per second, a token bucket), a call
 * past it answered with Auth0's own 429 — its envelope, `x-ratelimit-*` and `Retry-After` — and
 * the Authentication API's token endpoint not counted. Each request's time is given in
 * EMULATOR_NOW_HEADER (clock "header"), so the answers do not depend on the machine's speed.
 */
import { describe, expect, it } from "vitest";
import { EMULATOR_NOW_HEADER } from "../../../dev/emulators/knobs";
import { configureHost, emulatorStub, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { call, token } from "./auth0-api";

const M2M = { clientId: "m2m", clientSecret: "budget-knob-secret-9a8b" };
const T0 = 1_800_000_000_000;

async function tenant() {
  const domain = freshAuth0Domain("budget-knob");
  await seedAuth0Tenant(domain, { m2m: M2M, clients: { app: { callbacks: [] } } });
  const bearer = await token(domain, M2M.clientId, M2M.clientSecret);
  await configureHost(domain, { budget: { burst: 2, perSecond: 2, clock: "header" } });
  const at = (ms: number) =>
    call(`https://${domain}/api/v2/clients/app`, {
      headers: { authorization: `Bearer ${bearer}`, [EMULATOR_NOW_HEADER]: String(T0 + ms) },
    });
  return { domain, at };
}

describe("emulator knob budget: Auth0's Free plan", () => {
  it("two calls at once pass, the third is Auth0's 429 with its headers and body; a call later passes", async () => {
    const { domain, at } = await tenant();
    const first = await at(0);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit")).toBe("2");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
    expect((await at(0)).status).toBe(200);
    const refused = await at(0);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    // The next call passes at T0 + 500 ms: Auth0 rounds the reset up to whole seconds.
    expect(refused.headers.get("x-ratelimit-reset")).toBe(String(T0 / 1000 + 1));
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({
      statusCode: 429,
      error: "Too Many Requests",
      message: expect.stringContaining("X-RateLimit-Reset"),
      errorCode: "too_many_requests",
    });
    expect((await at(499)).status).toBe(429);
    expect((await at(500)).status).toBe(200);
    expect((await emulatorStub(domain).stats()).throttled).toBe(2);
  });

  it("the token endpoint is the Authentication API's: never counted, never refused", async () => {
    const { domain, at } = await tenant();
    for (let i = 0; i < 5; i++) await token(domain, M2M.clientId, M2M.clientSecret);
    expect((await at(0)).status).toBe(200);
    expect((await at(0)).status).toBe(200);
    expect((await emulatorStub(domain).stats()).throttled).toBe(0);
  });

  it("off by default: the same burst passes when no test turns the budget on", async () => {
    const { domain, at } = await tenant();
    await configureHost(domain, {});
    for (let i = 0; i < 5; i++) expect((await at(0)).status).toBe(200);
  });
});
