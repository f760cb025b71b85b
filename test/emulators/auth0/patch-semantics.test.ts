import { describe, expect, it } from "vitest";
import { auth0Client, expireAuth0Tokens, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { get, patch, token } from "./auth0-api";

const M2M = { clientId: "m2m", clientSecret: "patch-secret-0a1b" };

describe("Auth0 emulator: PATCH semantics", () => {
  it("replaces each list sent, whole, and leaves every field not sent as it was", async () => {
    const domain = freshAuth0Domain("patch");
    const before = {
      name: "App",
      callbacks: ["https://a.example.com/cb", "https://b.example.com/cb"],
      allowed_logout_urls: ["https://a.example.com/"],
      web_origins: ["https://a.example.com"],
      allowed_origins: ["https://o.example.com"],
    };
    await seedAuth0Tenant(domain, { m2m: M2M, clients: { app: before } });
    const bearer = await token(domain, M2M.clientId, M2M.clientSecret);
    const res = await patch(domain, "app", bearer, {
      callbacks: ["https://c.example.com/cb"],
      web_origins: [],
    });
    expect(res.status).toBe(200);
    expect(await auth0Client(domain, "app")).toEqual({
      ...before,
      client_id: "app",
      app_type: "spa",
      callbacks: ["https://c.example.com/cb"],
      web_origins: [],
    });
  });

  it("fields selects what GET returns; without fields the whole application comes back", async () => {
    const domain = freshAuth0Domain("fields");
    await seedAuth0Tenant(domain, {
      m2m: M2M,
      clients: { app: { callbacks: ["https://a.example.com/cb"] } },
    });
    const bearer = await token(domain, M2M.clientId, M2M.clientSecret);
    const one = await get(domain, "app", bearer, "?fields=callbacks&include_fields=true");
    expect(await one.json()).toEqual({ callbacks: ["https://a.example.com/cb"] });
    const all = (await (await get(domain, "app", bearer)).json()) as Record<string, unknown>;
    // The lists and everything else Auth0 keeps on an application (grant types, token settings…).
    expect(Object.keys(all)).toEqual(
      expect.arrayContaining([
        "allowed_logout_urls",
        "allowed_origins",
        "app_type",
        "callbacks",
        "client_id",
        "name",
        "web_origins",
        "grant_types",
        "jwt_configuration",
        "refresh_token",
        "is_first_party",
        "oidc_conformant",
      ]),
    );
    expect(Object.keys(all).length).toBeGreaterThan(20);
  });

  it("refuses more than 100 web origins like Auth0 does, and keeps the stored list", async () => {
    const domain = freshAuth0Domain("limit");
    await seedAuth0Tenant(domain, {
      m2m: M2M,
      clients: { app: { web_origins: ["https://keep.example.com"] } },
    });
    const bearer = await token(domain, M2M.clientId, M2M.clientSecret);
    const many = Array.from({ length: 101 }, (_, i) => `https://o${i}.example.com`);
    const res = await patch(domain, "app", bearer, { web_origins: many });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ errorCode: "invalid_body" });
    expect((await auth0Client(domain, "app"))?.web_origins).toEqual(["https://keep.example.com"]);
  });

  it("caps only what Auth0 documents: 100 allowed logout URLs and 100 web origins; callbacks have no documented cap", async () => {
    const domain = freshAuth0Domain("caps");
    await seedAuth0Tenant(domain, { m2m: M2M, clients: { app: {} } });
    const bearer = await token(domain, M2M.clientId, M2M.clientSecret);
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://pr-${i}.example.com/`);
    const over = await patch(domain, "app", bearer, { allowed_logout_urls: urls(101) });
    expect(over.status).toBe(400);
    expect(await over.json()).toMatchObject({
      statusCode: 400,
      error: "Bad Request",
      errorCode: "invalid_body",
    });
    expect(
      (await patch(domain, "app", bearer, { allowed_logout_urls: urls(100), web_origins: urls(100) })).status,
    ).toBe(200);
    expect((await patch(domain, "app", bearer, { callbacks: urls(150) })).status).toBe(200);
    expect((await auth0Client(domain, "app"))?.callbacks).toHaveLength(150);
  });

  it("an expired token is refused with Auth0's 401", async () => {
    const domain = freshAuth0Domain("exp");
    await seedAuth0Tenant(domain, { m2m: M2M, clients: { app: {} } });
    const bearer = await token(domain, M2M.clientId, M2M.clientSecret);
    await expireAuth0Tokens(domain);
    const res = await get(domain, "app", bearer);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      statusCode: 401,
      message: "Expired token received for JSON Web Token validation",
    });
  });
});
