import { describe, expect, it } from "vitest";
import { epochSecondsResetHeader } from "../../../workers/adapters/http";
import { oktaApp, seedOktaApp } from "../../helpers/emulators-okta";
import { describeProviderContract } from "../../helpers/provider-contract";
import { APP_ID, oktaOp, oktaOrg } from "./okta-org";

const UNRELATED = [
  "https://app.example.com/authorization-code/callback",
  "http://localhost:8080/login/callback",
];
const LOGOUT = ["https://app.example.com/"];
const ITEM = "https://pr-1.preview.example.com/authorization-code/callback";

for (const [name, field, unrelated] of [
  ["okta.redirectUri", "redirect_uris", UNRELATED],
  ["okta.postLogoutRedirectUri", "post_logout_redirect_uris", LOGOUT],
] as const) {
  describeProviderContract({
    provider: "okta",
    op: oktaOp(name),
    item: ITEM,
    unrelated: [...unrelated],
    apiHost: (f) => (f.ctx.config as { domain: string }).domain,
    forbiddenOn: "write",
    errors: {
      unauthenticated: { status: 401, message: "Invalid token provided", providerCode: "E0000011" },
      forbidden: {
        status: 403,
        message: "You do not have permission to perform the requested action",
        providerCode: "E0000006",
      },
      missing: {
        status: 404,
        message: `Not found: Resource not found: ${APP_ID} (AppInstance)`,
        providerCode: "E0000007",
      },
    },
    rateLimitWaitMs: epochSecondsResetHeader("x-rate-limit-reset"),
    async setup(failure) {
      const o = await oktaOrg({ redirect_uris: UNRELATED, post_logout_redirect_uris: LOGOUT }, failure);
      return {
        ...o,
        params: { app: APP_ID, url: ITEM },
        secrets: [o.token],
        entries: async () => (await o.app())?.settings.oauthClient[field] ?? [],
        // lastUpdated moves with every PUT; everything else must come back exactly.
        snapshot: async () => ({ ...(await o.app()), lastUpdated: undefined }),
        setEntries: async (entries) => {
          const app = await o.app();
          if (!app) throw new Error("app missing");
          await seedOktaApp(o.org, {
            ...app,
            settings: { ...app.settings, oauthClient: { ...app.settings.oauthClient, [field]: entries } },
          });
        },
      };
    },
  });
}

describe("okta list ops: GET then PUT of the whole app", () => {
  it("the PUT carries every property as read, so nothing the app had is lost by the full replace", async () => {
    const o = await oktaOrg({ redirect_uris: UNRELATED, post_logout_redirect_uris: LOGOUT });
    const before = await o.app();
    const op = oktaOp("okta.redirectUri");
    const params = { app: APP_ID, url: ITEM };
    await op.create(o.ctx, params, await op.inspect(o.ctx, params));
    expect(o.calls).toEqual([`GET /api/v1/apps/${APP_ID}`, `PUT /api/v1/apps/${APP_ID}`]);
    const after = await oktaApp(o.org, APP_ID);
    expect({ ...after, lastUpdated: 0 }).toEqual({
      ...before,
      lastUpdated: 0,
      settings: {
        ...before?.settings,
        oauthClient: { ...before?.settings.oauthClient, redirect_uris: [...UNRELATED, ITEM] },
      },
    });
    expect(after?.settings.oauthClient.post_logout_redirect_uris).toEqual(LOGOUT);
  });

  it("SSWS is the auth scheme; a Bearer token of the same value is refused", async () => {
    const o = await oktaOrg({});
    const res = await o.ctx.fetch(`https://${o.org}/api/v1/apps/${APP_ID}`, {
      headers: { authorization: `Bearer ${o.token}` },
    });
    expect(res.status).toBe(401);
  });

  it("lockOn names the org's app, from the connection's settings", () => {
    expect(
      oktaOp("okta.postLogoutRedirectUri").lockOn(
        { app: APP_ID, url: ITEM },
        { type: "okta", domain: "Acme.okta.com" },
      ),
    ).toBe(`okta:acme.okta.com:app:${APP_ID}`);
  });
});
