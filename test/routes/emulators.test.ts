import { describe, expect, it } from "vitest";
import { createApp } from "../../workers/app";
import { networkTransport } from "../../workers/wiring/wire";
import { apply, call, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { previewPlan, seedTenant, TEST_M2M } from "../helpers/plans";

const app = testApp();

describe("local emulator view (dev entry)", () => {
  it("shows two scopes' entries side by side on the emulated application, without its credentials", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const [a, b] = [freshPr(), freshPr()];
    await Promise.all(
      [a, b].map((scope) => apply(app, "preview", scope, previewPlan(domain), { wait: true })),
    );
    const res = await call(app, "GET", `/v1/emulators/${domain}`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const body = JSON.parse(text) as { state: Record<string, { callbacks?: string[] }> };
    expect(new Set(body.state["client:preview-app"]?.callbacks)).toEqual(
      new Set([`https://${a}.preview.example.com/callback`, `https://${b}.preview.example.com/callback`]),
    );
    expect(text).not.toContain(TEST_M2M.clientSecret);
    expect(Object.keys(body.state).some((k) => k.startsWith("token:") || k.startsWith("m2m:"))).toBe(false);
  });
});

describe("the production app (workers/index.ts)", () => {
  // Built exactly as the production entry builds it, on the same bindings the tests have: the
  // emulator binding is there, and still nothing in the app reaches it.
  const production = createApp({ transport: networkTransport });

  it("serves no emulator view and no test hooks", async () => {
    expect((await call(production, "GET", "/v1/emulators/acme.us.auth0.com")).status).toBe(404);
    const hold = { identity: "auth0:acme.us.auth0.com:client:x", holder: "h", ttlSeconds: 5 };
    expect((await call(production, "POST", "/_test/locks/hold", hold)).status).toBe(404);
    // Control: the dev app does serve the hooks when asked, so the 404 above is not a typo.
    const dev = testApp({ testHooks: true });
    expect((await call(dev, "POST", "/_test/locks/hold", hold)).status).toBe(200);
  });

  it("publishes no emulator route in its OpenAPI document", async () => {
    const doc = (await (await call(production, "GET", "/v1/openapi.json")).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toContain("/v1/locks");
    expect(Object.keys(doc.paths).filter((p) => p.includes("emulator"))).toEqual([]);
    const devDoc = (await (await call(app, "GET", "/v1/openapi.json")).json()) as typeof doc;
    expect(Object.keys(devDoc.paths)).toContain("/v1/emulators/{host}");
  });
});
