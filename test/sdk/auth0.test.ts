/** `auth0` (Management API client) against the Auth0 emulator: token, read, update, errors. */
import { ManagementClient, ManagementError } from "auth0";
import { describe, expect, it } from "vitest";
import { auth0Keys, clientRecord } from "../../dev/emulators/auth0/state";
import { configure, dump, emulatorFetch, seed, sent, unique } from "./emulators";

const M2M = { clientId: "sdk-m2m", clientSecret: "test-only-sdk-secret" };

async function tenant(scopes = ["read:clients", "update:clients"]) {
  const domain = `${unique("sdk")}.us.auth0.com`;
  await seed(domain, {
    [auth0Keys.m2m(M2M.clientId)]: { clientSecret: M2M.clientSecret, scopes },
    [auth0Keys.client("app")]: clientRecord("app", {
      name: "Previews",
      callbacks: ["https://a.example.com/cb"],
      web_origins: ["https://a.example.com"],
    }),
  });
  const client = new ManagementClient({ domain, ...M2M, fetch: emulatorFetch, maxRetries: 2 });
  return { domain, client };
}

describe("auth0 SDK", () => {
  it("buys a token at /oauth/token and reads the lists with fields", async () => {
    const { client } = await tenant();
    const app = await client.clients.get("app", {
      fields: "callbacks,allowed_logout_urls,web_origins,allowed_origins",
      include_fields: true,
    });
    expect(app).toEqual({
      callbacks: ["https://a.example.com/cb"],
      allowed_logout_urls: [],
      web_origins: ["https://a.example.com"],
      allowed_origins: [],
    });
  });

  it("without fields the whole application comes back, as Auth0 shapes it", async () => {
    const { client } = await tenant();
    const app = await client.clients.get("app");
    expect(app).toMatchObject({
      client_id: "app",
      name: "Previews",
      app_type: "spa",
      is_first_party: true,
      oidc_conformant: true,
      grant_types: expect.arrayContaining(["authorization_code"]),
      jwt_configuration: { alg: "RS256" },
      token_endpoint_auth_method: "none",
    });
    expect(Object.keys(app).length).toBeGreaterThan(20);
  });

  it("an update of one list returns the full client and leaves every other field as it was", async () => {
    const { client, domain } = await tenant();
    const before = await client.clients.get("app");
    const after = await client.clients.update("app", { callbacks: ["https://b.example.com/cb"] });
    expect(after).toEqual({ ...before, callbacks: ["https://b.example.com/cb"] });
    await client.clients.update("app", { jwt_configuration: { alg: "RS256", lifetime_in_seconds: 600 } });
    const stored = (await dump(domain, auth0Keys.client("app")))[auth0Keys.client("app")];
    expect(stored).toMatchObject({
      callbacks: ["https://b.example.com/cb"],
      web_origins: ["https://a.example.com"],
      jwt_configuration: { lifetime_in_seconds: 600 },
    });
  });

  it("errors: 404 inexistent_client, 403 insufficient_scope, 401 for a bad token", async () => {
    const { client } = await tenant(["read:clients"]);
    const missing = await client.clients.get("nope").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ManagementError);
    expect(missing).toMatchObject({ statusCode: 404, body: { errorCode: "inexistent_client" } });
    const denied = await client.clients.update("app", { callbacks: [] }).catch((e: unknown) => e);
    expect(denied).toMatchObject({ statusCode: 403, body: { errorCode: "insufficient_scope" } });
    const { domain } = await tenant();
    const anonymous = new ManagementClient({ domain, token: "not-a-token", fetch: emulatorFetch });
    const refused = await anonymous.clients.get("app").catch((e: unknown) => e);
    expect(refused).toMatchObject({ statusCode: 401 });
  });

  it("a 429 carries x-ratelimit-reset and a Date; the SDK retries and the read lands", async () => {
    const { client, domain } = await tenant();
    await client.clients.get("app", { fields: "callbacks" });
    await configure(domain, { failures: [{ status: 429, count: 1, on: "read" }] });
    const before = sent.length;
    const { data, rawResponse } = await client.clients.get("app", { fields: "callbacks" }).withRawResponse();
    expect(data).toEqual({ callbacks: ["https://a.example.com/cb"] });
    expect(sent.length - before).toBe(2);
    expect(new Date(rawResponse.headers.get("date") ?? "").getTime()).toBeGreaterThan(Date.now() - 60_000);
  });
});
