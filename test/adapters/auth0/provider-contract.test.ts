import { describe, expect, it } from "vitest";
import { epochSecondsResetHeader } from "../../../workers/adapters/http";
import { auth0Client, expireAuth0Tokens, seedAuth0Tenant } from "../../helpers/emulators";
import { describeProviderContract } from "../../helpers/provider-contract";
import { APP, auth0Tenant, line, M2M, op } from "./auth0-tenant";

const callbackUrl = op("auth0.callbackUrl");
const ITEM = "https://pr-3.preview.example.com/callback";
const UNRELATED = ["https://app.example.com/callback", "http://localhost:3000/callback"];
const WRONG_SECRET = "wrong-secret-b4c1d9e2";

describeProviderContract({
  provider: "auth0",
  op: callbackUrl,
  item: ITEM,
  unrelated: UNRELATED,
  apiHost: (f) => (f.ctx.config as { domain: string }).domain,
  // A token without update:clients can read the application but not write it.
  forbiddenOn: "write",
  errors: {
    unauthenticated: { status: 401, message: "Unauthorized", providerCode: "access_denied" },
    forbidden: {
      status: 403,
      message: "Insufficient scope, expected any of: update:clients",
      providerCode: "insufficient_scope",
    },
    missing: { status: 404, message: "The client does not exist", providerCode: "inexistent_client" },
    serverError: { status: 500, message: "Internal Server Error" },
  },
  // x-ratelimit-reset is a UNIX time in seconds: the retry waits exactly until then.
  rateLimitWaitMs: epochSecondsResetHeader("x-ratelimit-reset"),
  async setup(failure) {
    const t = await auth0Tenant({
      clients: failure === "missing" ? {} : { [APP]: { callbacks: UNRELATED } },
      ...(failure === "forbidden" ? { scopes: ["read:clients"] } : {}),
      ...(failure === "unauthenticated" ? { configuredSecret: WRONG_SECRET } : {}),
    });
    const client = () => auth0Client(t.domain, APP);
    return {
      ...t,
      params: line(ITEM),
      // Neither the secret configured nor the tenant's real one may show in an error.
      secrets: [WRONG_SECRET, M2M.clientSecret],
      entries: async () => (await client())?.callbacks ?? [],
      snapshot: client,
      setEntries: async (callbacks) =>
        seedAuth0Tenant(t.domain, { m2m: M2M, clients: { [APP]: { ...(await client()), callbacks } } }),
    };
  },
});

describe("auth0 adapter: the Management API token", () => {
  it("reuses one token across calls, and buys a new one once after Auth0 says it expired", async () => {
    const params = line(ITEM);
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
