/**
 * `@kinde/management-api-js` against the Kinde emulator. The SDK keeps one global configuration and
 * calls the global `fetch`, so this file routes the global `fetch` to the emulators.
 */
import { ApiError, Callbacks, init } from "@kinde/management-api-js";
import { beforeAll, describe, expect, it } from "vitest";
import { KINDE_ALL_SCOPES, kindeKeys } from "../../dev/emulators/kinde";
import { configure, dump, routeGlobalFetchToEmulators, seed, sent, unique } from "./emulators";

const M2M = { clientId: "sdk-m2m", clientSecret: "test-only-sdk-kinde-secret" };
const APP = "sdkapp";
const host = `${unique("sdk").replace("-", "")}.kinde.com`;

beforeAll(async () => {
  routeGlobalFetchToEmulators();
  await seed(host, {
    [kindeKeys.m2m(M2M.clientId)]: { clientSecret: M2M.clientSecret, scopes: KINDE_ALL_SCOPES },
    [kindeKeys.app(APP)]: {
      redirect_urls: ["https://a.example.com/cb"],
      logout_urls: ["https://a.example.com/"],
    },
  });
  init({ kindeDomain: `https://${host}`, ...M2M });
});

const tokenRequests = () => sent.filter((r) => r.url.endsWith("/oauth2/token")).length;

describe("kinde SDK", () => {
  it("adds, reads and deletes callback URLs; one JWT token serves every call", async () => {
    await Callbacks.addRedirectCallbackUrls({
      appId: APP,
      requestBody: { urls: ["https://b.example.com/cb"] },
    });
    expect((await Callbacks.getCallbackUrls({ appId: APP })).redirect_urls).toEqual([
      "https://a.example.com/cb",
      "https://b.example.com/cb",
    ]);
    await Callbacks.deleteCallbackUrls({ appId: APP, urls: "https://b.example.com/cb" });
    const logout = await Callbacks.getLogoutUrls({ appId: APP });
    expect(logout.logout_urls).toEqual(["https://a.example.com/"]);
    const stored = (await dump(host, kindeKeys.app(APP)))[kindeKeys.app(APP)];
    expect(stored).toEqual({
      redirect_urls: ["https://a.example.com/cb"],
      logout_urls: ["https://a.example.com/"],
    });
    // The SDK reads aud and exp off the token: a JWT for this business is bought once and reused.
    expect(tokenRequests()).toBe(1);
  });

  it("errors: an unknown application is 400 INVALID_APPLICATION_ID; a 429 carries RateLimit-Reset", async () => {
    const missing = await Callbacks.getCallbackUrls({ appId: "nope" }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ status: 400, body: { errors: [{ code: "INVALID_APPLICATION_ID" }] } });
    await configure(host, { failures: [{ status: 429, count: 1, on: "read" }] });
    const limited = await Callbacks.getCallbackUrls({ appId: APP }).catch((e: unknown) => e);
    expect(limited).toMatchObject({ status: 429, body: { errors: [{ code: "TOO_MANY_REQUESTS" }] } });
    expect(tokenRequests()).toBe(1);
  });
});
