import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { apply, call, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { previewPlan, seedTenant, TEST_M2M } from "../helpers/plans";

const app = testApp();

describe("local emulator view", () => {
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

  it("answers 404 when the service does not run with emulators", async () => {
    const res = await call(app, "GET", "/v1/emulators/acme.us.auth0.com", undefined, {}, {
      ...env,
      EMULATORS: undefined,
    } as typeof env);
    expect(res.status).toBe(404);
  });
});
