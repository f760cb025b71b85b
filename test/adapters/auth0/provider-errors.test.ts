import { describe, expect, it } from "vitest";
import { SponsonError } from "../../../shared/errors";
import { auth0Client, configureHost, expireAuth0Tokens } from "../../helpers/emulators";
import { APP, auth0Tenant, line, M2M, op } from "./auth0-tenant";

const callbackUrl = op("auth0.callbackUrl");
const params = line("https://pr-3.preview.example.com/callback");

async function failure(promise: Promise<unknown>): Promise<SponsonError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof SponsonError) return err;
    throw err;
  }
  throw new Error("expected the call to fail");
}

describe("auth0 adapter: provider errors and retries", () => {
  it("a wrong client secret is a PROVIDER_ERROR 401 whose message does not carry the secret", async () => {
    const wrong = "wrong-secret-b4c1d9e2";
    const { ctx } = await auth0Tenant({ configuredSecret: wrong });
    const err = await failure(callbackUrl.inspect(ctx, params));
    expect(err.code).toBe("PROVIDER_ERROR");
    expect(err.message).toBe("auth0: 401 Unauthorized");
    expect(err.detail).toMatchObject({ provider: "auth0", status: 401, providerCode: "access_denied" });
    expect(JSON.stringify(err.toInfo())).not.toContain(wrong);
    expect(JSON.stringify(err.toInfo())).not.toContain(M2M.clientSecret);
  });

  it("a token without update:clients can read but its write fails 403 insufficient_scope", async () => {
    const { domain, ctx } = await auth0Tenant({ scopes: ["read:clients"] });
    const seen = await callbackUrl.inspect(ctx, params);
    const err = await failure(callbackUrl.create(ctx, params, seen));
    expect(err.message).toBe("auth0: 403 Insufficient scope, expected any of: update:clients");
    expect(err.detail).toMatchObject({ status: 403, providerCode: "insufficient_scope" });
    expect((await auth0Client(domain, APP))?.callbacks).toEqual([]);
  });

  it("an application that does not exist is 404 inexistent_client", async () => {
    const { ctx } = await auth0Tenant();
    const err = await failure(callbackUrl.inspect(ctx, line("https://x.example.com", "no-such-app")));
    expect(err.message).toBe("auth0: 404 The client does not exist");
    expect(err.detail).toMatchObject({ status: 404, providerCode: "inexistent_client" });
  });

  it("a 429 is retried after waiting exactly until the x-ratelimit-reset it carried", async () => {
    const { domain, ctx, clock, calls, responses } = await auth0Tenant();
    const seen = await callbackUrl.inspect(ctx, params);
    await configureHost(domain, { failures: [{ status: 429, count: 1, on: "write" }] });
    const startMs = clock.now();
    await callbackUrl.create(ctx, params, seen);

    const limited = responses.find((r) => r.status === 429);
    const resetSeconds = Number(limited?.headers.get("x-ratelimit-reset"));
    expect(clock.sleeps).toEqual([resetSeconds * 1000 - startMs]);
    expect(calls.filter((c) => c.startsWith("PATCH"))).toHaveLength(2);
    expect((await auth0Client(domain, APP))?.callbacks).toEqual([params.url]);
  });

  it("a 503 is retried with backoff and then succeeds", async () => {
    const { domain, ctx, clock } = await auth0Tenant();
    await configureHost(domain, { failures: [{ status: 503, count: 2, on: "read" }] });
    expect((await callbackUrl.inspect(ctx, params)).present).toBe(false);
    expect(clock.sleeps).toEqual([500, 1_000]);
  });

  it("a provider that keeps failing 5xx ends in PROVIDER_ERROR after the bounded attempts", async () => {
    const { domain, ctx, clock, calls } = await auth0Tenant();
    const seen = await callbackUrl.inspect(ctx, params);
    await configureHost(domain, { failures: [{ status: 500, count: 100, on: "write" }] });
    const err = await failure(callbackUrl.create(ctx, params, seen));
    expect(err.message).toBe("auth0: 500 Internal Server Error");
    expect(err.detail).toMatchObject({ status: 500, attempts: 4 });
    expect(calls.filter((c) => c.startsWith("PATCH"))).toHaveLength(4);
    expect(clock.sleeps).toEqual([500, 1_000, 2_000]);
    expect((await auth0Client(domain, APP))?.callbacks).toEqual([]);
    await configureHost(domain, {});
  });

  it("reuses one token across calls, and buys a new one once after Auth0 says it expired", async () => {
    const { domain, ctx, calls } = await auth0Tenant();
    await callbackUrl.inspect(ctx, params);
    await callbackUrl.inspect(ctx, params);
    expect(calls.filter((c) => c === "POST /oauth/token")).toHaveLength(1);

    await expireAuth0Tokens(domain);
    expect((await callbackUrl.inspect(ctx, params)).present).toBe(false);
    expect(calls.slice(3)).toEqual([
      `GET /api/v2/clients/${APP}`,
      "POST /oauth/token",
      `GET /api/v2/clients/${APP}`,
    ]);
  });
});
