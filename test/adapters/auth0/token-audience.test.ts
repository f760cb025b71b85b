/**
 * A token is bought for one audience (docs/design.md, "Provider tokens"): two Auth0 connections with
 * the same domain and credential that differ only in `audience` are given different tokens, so one
 * never borrows the other's from the isolate cache. The emulated tenant issues a token per API and
 * its Management API refuses another API's token with 401, as Auth0 checks `aud`.
 */
import { describe, expect, it } from "vitest";
import { auth0Keys } from "../../../dev/emulators/auth0/state";
import { auth0Adapter } from "../../../workers/adapters/auth0";
import { IsolateTokenCache } from "../../../workers/adapters/http";
import { emulatorStub } from "../../helpers/emulators";
import { harness } from "../../helpers/provider-contract";
import { APP, auth0Tenant, line, M2M, op } from "./auth0-tenant";

const callbackUrl = op("auth0.callbackUrl");
const OTHER_API = "https://api.example.com/";

describe("tokens of two Auth0 connections differing only in audience", () => {
  it("are kept apart in the isolate cache: the Management API connection never meets a 401, the other API's never borrows its token", async () => {
    const tenant = await auth0Tenant();
    await emulatorStub(tenant.domain).seed({ [auth0Keys.api(OTHER_API)]: true });
    const cache = new IsolateTokenCache();
    const config = {
      type: "auth0",
      domain: tenant.domain,
      clientId: M2M.clientId,
      clientSecret: M2M.clientSecret,
    };
    const management = harness(auth0Adapter, config, [M2M.clientSecret]);
    const other = harness(auth0Adapter, { ...config, audience: OTHER_API }, [M2M.clientSecret]);
    management.ctx.isolateCache = cache;
    other.ctx.isolateCache = cache;
    const params = line("https://pr-1.preview.example.com/callback");

    // The other API's connection goes first: its token is not the Management API's.
    await auth0Adapter.prepare?.(other.ctx);
    await expect(callbackUrl.inspect(other.ctx, params)).rejects.toMatchObject({
      code: "PROVIDER_ERROR",
      detail: { status: 401 },
    });
    await auth0Adapter.prepare?.(management.ctx);
    expect((await callbackUrl.inspect(management.ctx, params)).present).toBe(false);
    expect(management.responses.map((r) => r.status)).toEqual([200, 200]);
    expect(management.calls).toEqual(["POST /oauth/token", `GET /api/v2/clients/${APP}`]);

    // And the other way round: the Management API's token is not lent to the other connection.
    const before = other.calls.length;
    await expect(callbackUrl.inspect(other.ctx, params)).rejects.toMatchObject({ detail: { status: 401 } });
    expect(other.calls.slice(before)[0]).toBe(`GET /api/v2/clients/${APP}`);
    expect(other.responses.slice(before).map((r) => r.status)).toContain(401);
  });
});
