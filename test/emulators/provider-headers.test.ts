/**
 * What every emulator answers alike: a Date header on each response (injected failures included),
 * as every provider's front end sends one, and S3 path-style requests kept by the bucket's object.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { emulatorObjectName } from "../../dev/emulators/registry";
import { providerFetch } from "../../dev/emulators/transport";
import { configureHost } from "../helpers/emulators";

const send = providerFetch(env);

const HOSTS = {
  auth0: `date-${crypto.randomUUID().slice(0, 8)}.us.auth0.com/api/v2/clients/x`,
  okta: `date-${crypto.randomUUID().slice(0, 8)}.okta.com/api/v1/apps/x`,
  kinde: `date${crypto.randomUUID().slice(0, 8)}.kinde.com/api/v1/applications/x/auth_redirect_urls`,
  supabase: "api.supabase.com/v1/projects/x/config/auth",
  identitytoolkit: "identitytoolkit.googleapis.com/v2/projects/x/config",
  oauth2: "oauth2.googleapis.com/token",
  gcs: "storage.googleapis.com/storage/v1/b/x",
  r2: "api.cloudflare.com/client/v4/accounts/x/r2/buckets/x/cors",
  s3: `date-${crypto.randomUUID().slice(0, 8)}.s3.eu-west-1.amazonaws.com/?cors`,
  iam: "iam.googleapis.com/v1/projects/x/locations/global/oauthClients/x",
  entraLogin: "login.microsoftonline.com/x/oauth2/v2.0/token",
  graph: `graph.microsoft.com/v1.0/applications/${crypto.randomUUID()}`,
  cognito: "cognito-idp.ap-south-1.amazonaws.com/",
};

describe("every emulator", () => {
  it.each(Object.entries(HOSTS))("%s answers with a Date header", async (_name, target) => {
    const before = Date.now();
    const res = await send(`https://${target}`);
    const date = Date.parse(res.headers.get("date") ?? "");
    expect(date).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(date).toBeLessThanOrEqual(Date.now());
  });

  it("an injected 429 carries Date next to the provider's reset header", async () => {
    const host = `date-${crypto.randomUUID().slice(0, 8)}.okta.com`;
    await configureHost(host, { failures: [{ status: 429, count: 1 }] });
    const res = await send(`https://${host}/api/v1/apps/x`);
    expect(res.status).toBe(429);
    const resetMs = Number(res.headers.get("x-rate-limit-reset")) * 1000;
    // Okta's SDK waits reset − Date: a positive, bounded wait.
    expect(resetMs - Date.parse(res.headers.get("date") ?? "")).toBeGreaterThan(0);
    expect(resetMs - Date.parse(res.headers.get("date") ?? "")).toBeLessThanOrEqual(3_000);
  });

  it("an S3 path-style request is kept by its bucket's virtual-host object", () => {
    expect(emulatorObjectName(new URL("https://s3.eu-west-1.amazonaws.com/assets-1/?cors"))).toBe(
      "assets-1.s3.eu-west-1.amazonaws.com",
    );
    expect(emulatorObjectName(new URL("https://s3.amazonaws.com/assets-1?cors"))).toBe(
      "assets-1.s3.us-east-1.amazonaws.com",
    );
    expect(emulatorObjectName(new URL("https://api.supabase.com/v1/x"))).toBe("api.supabase.com");
  });
});
