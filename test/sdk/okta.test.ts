/** `@okta/okta-sdk-nodejs` against the Okta emulator: GET then PUT of an OIDC app, errors, 429 wait. */
import okta from "@okta/okta-sdk-nodejs";
import { describe, expect, it } from "vitest";
import { oktaKeys, oktaOidcApp } from "../../dev/emulators/okta";
import { configure, dump, seed, toEmulator, unique } from "./emulators";

const TOKEN = "00test-only-sdk-okta-token";

/** The SDK's own executor (429 handling included), with only the origin of each request rewritten. */
class EmulatorRequestExecutor extends okta.DefaultRequestExecutor {
  override fetch(request: { url: string }) {
    return super.fetch({ ...request, url: toEmulator(request.url) });
  }
}

async function org() {
  const host = `${unique("sdk")}.okta.com`;
  await seed(host, {
    [oktaKeys.token(TOKEN)]: {},
    [oktaKeys.app("0oaapp")]: oktaOidcApp("0oaapp", {
      redirect_uris: ["https://a.example.com/cb"],
      post_logout_redirect_uris: ["https://a.example.com/"],
    }),
  });
  const executor = new EmulatorRequestExecutor({ maxRetries: 2, requestTimeout: 30_000 });
  const client = new okta.Client({
    orgUrl: `https://${host}`,
    token: TOKEN,
    requestExecutor: executor,
    cacheMiddleware: null,
  });
  return { host, client, executor };
}

describe("okta SDK", () => {
  it("reads the app, edits its redirect URIs, and PUTs the whole app back", async () => {
    const { host, client } = await org();
    const app = (await client.applicationApi.getApplication({
      appId: "0oaapp",
    })) as okta.OpenIdConnectApplication;
    expect(app.settings?.oauthClient?.redirect_uris).toEqual(["https://a.example.com/cb"]);
    app.settings?.oauthClient?.redirect_uris?.push("https://b.example.com/cb");
    const replaced = (await client.applicationApi.replaceApplication({
      appId: "0oaapp",
      application: app,
    })) as okta.OpenIdConnectApplication;
    expect(replaced.settings?.oauthClient?.redirect_uris).toEqual([
      "https://a.example.com/cb",
      "https://b.example.com/cb",
    ]);
    const stored = (await dump(host, oktaKeys.app("0oaapp")))[oktaKeys.app("0oaapp")] as typeof app;
    expect(stored.settings?.oauthClient?.post_logout_redirect_uris).toEqual(["https://a.example.com/"]);
  });

  it("errors: 404 E0000007 for an unknown app, 401 E0000011 for a bad token", async () => {
    const { client, host } = await org();
    const missing = await client.applicationApi.getApplication({ appId: "0oanope" }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, errorCode: "E0000007" });
    const stranger = new okta.Client({
      orgUrl: `https://${host}`,
      token: "00not-a-token",
      requestExecutor: new EmulatorRequestExecutor(),
      cacheMiddleware: null,
    });
    const refused = await stranger.applicationApi
      .getApplication({ appId: "0oaapp" })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 401, errorCode: "E0000011" });
  });

  it("after a 429 the SDK waits X-Rate-Limit-Reset − Date (not 1 ms), then the read lands", async () => {
    const { client, host, executor } = await org();
    const delays: number[] = [];
    executor.on("backoff", (_req: unknown, _res: unknown, _id: unknown, delayMs: number) =>
      delays.push(delayMs),
    );
    await configure(host, { failures: [{ status: 429, count: 1, on: "read" }] });
    const app = await client.applicationApi.getApplication({ appId: "0oaapp" });
    expect(app.id).toBe("0oaapp");
    expect(delays).toHaveLength(1);
    // The injected 429 resets two seconds on; Date has whole seconds and the SDK adds one.
    expect(delays[0]).toBeGreaterThanOrEqual(2_000);
    expect(delays[0]).toBeLessThanOrEqual(4_000);
  });
});
