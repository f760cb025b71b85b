import { describe, expect, it } from "vitest";
import { createApp } from "../../workers/app";
import { networkTransport } from "../../workers/wiring/wire";
import { apply, call, testApp } from "../helpers/app";
import { auth0Client, emulatorStub, freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { previewPlan, seedTenant, TEST_M2M } from "../helpers/plans";
import { bearer } from "../helpers/tokens";

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

describe('seeding an emulated host (dev entry, docs/deploy.md "Day one: existing entries")', () => {
  /** A demo tenant of its own: `sponson-demo.`-prefixed hosts are provisioned at first use. */
  const demoHost = () => `sponson-demo.t${crypto.randomUUID().slice(0, 8)}.auth0.com`;
  const thirty = Array.from({ length: 30 }, (_, i) => `https://pr-${41 + i}.preview.example.com/callback`);
  const legacy = (callbacks: string[]) => ({
    "client:legacy-app": { client_id: "legacy-app", name: "Legacy", app_type: "spa", callbacks },
  });
  /** Any request to the host: the emulator provisions the demo tenant before answering it. */
  const firstUse = async (host: string) => {
    await (await emulatorStub(host).fetch(new Request(`https://${host}/`))).body?.cancel();
  };

  it("an admin seeds ~30 entries before the demo tenant's first use, and the demo keeps them", async () => {
    const host = demoHost();
    const res = await call(app, "POST", `/v1/emulators/${host}/seed`, legacy(thirty));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ host, keys: ["client:legacy-app"] });
    await firstUse(host);
    expect((await auth0Client(host, "legacy-app"))?.callbacks).toEqual(thirty);
    // The rest of the demo tenant is there too: the seed replaced one key, not the provisioning.
    expect(await auth0Client(host, "preview-app")).toBeDefined();
  });

  it("control: without a seed the demo's own legacy-app entries are there", async () => {
    const host = demoHost();
    await firstUse(host);
    expect((await auth0Client(host, "legacy-app"))?.callbacks).toContain(
      "https://pr-71.preview.example.com/callback",
    );
  });

  it("a seed after first use replaces the key; a viewer may not seed; a body not an object is a problem", async () => {
    const host = demoHost();
    await firstUse(host);
    expect((await call(app, "POST", `/v1/emulators/${host}/seed`, legacy(thirty))).status).toBe(200);
    expect((await auth0Client(host, "legacy-app"))?.callbacks).toEqual(thirty);

    const viewer = await call(app, "POST", `/v1/emulators/${host}/seed`, legacy([]), await bearer("viewer"));
    expect(viewer.status).toBe(403);
    const bad = await call(app, "POST", `/v1/emulators/${host}/seed`, [thirty]);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "VALIDATION" });
    expect((await auth0Client(host, "legacy-app"))?.callbacks).toEqual(thirty);
  });
});

describe("the production app (workers/index.ts)", () => {
  // Built exactly as the production entry builds it, on the same bindings the tests have: the
  // emulator binding is there, and still nothing in the app reaches it.
  const production = createApp({ transport: networkTransport });

  it("serves no emulator view and no test hooks", async () => {
    expect((await call(production, "GET", "/v1/emulators/acme.us.auth0.com")).status).toBe(404);
    expect((await call(production, "POST", "/v1/emulators/acme.us.auth0.com/seed", {})).status).toBe(404);
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
