/** `supabase-management-js` against the Supabase emulator: auth config read, partial update, errors. */
import { SupabaseManagementAPI, SupabaseManagementAPIError } from "supabase-management-js";
import { beforeAll, describe, expect, it } from "vitest";
import { authConfig, supabaseKeys } from "../../dev/emulators/supabase";
import { configure, dump, routeGlobalFetchToEmulators, seed, unique } from "./emulators";

const HOST = "api.supabase.com";
const ref = unique("ref").replace("-", "");
const token = `sbp_${crypto.randomUUID().replaceAll("-", "")}`;

beforeAll(async () => {
  // The SDK calls the global fetch at its default base URL, https://api.supabase.com.
  routeGlobalFetchToEmulators();
  await seed(HOST, {
    [supabaseKeys.token(token)]: { projects: [ref] },
    [supabaseKeys.project(ref)]: authConfig({ uri_allow_list: "https://a.example.com/**" }),
  });
});

describe("supabase-management-js", () => {
  it("reads the whole auth config, as large as Supabase's", async () => {
    const api = new SupabaseManagementAPI({ accessToken: token });
    const { data, headers } = await api.getAuthServiceConfig(ref);
    expect(data).toMatchObject({
      uri_allow_list: "https://a.example.com/**",
      site_url: "http://localhost:3000",
      external_github_enabled: false,
      mailer_otp_exp: 3600,
      sms_provider: "twilio",
    });
    expect(Object.keys(data).length).toBeGreaterThan(100);
    expect(headers.get("x-ratelimit-limit")).toBe("120");
    expect(headers.get("date")).toBeTruthy();
  });

  it("an update of the allow list returns the full config and leaves every other field as it was", async () => {
    const api = new SupabaseManagementAPI({ accessToken: token });
    const { data: before } = await api.getAuthServiceConfig(ref);
    const { data: after } = await api.updateAuthServiceConfig(ref, {
      uri_allow_list: "https://a.example.com/**,https://b.example.com/**",
    });
    expect(after).toEqual({ ...before, uri_allow_list: "https://a.example.com/**,https://b.example.com/**" });
    await api.updateAuthServiceConfig(ref, { jwt_exp: 7200 });
    const stored = (await dump(HOST, supabaseKeys.project(ref)))[supabaseKeys.project(ref)];
    expect(stored).toMatchObject({ jwt_exp: 7200, uri_allow_list: after.uri_allow_list });
  });

  it("errors: 401 for an unknown token, 404 for another project, 429 with X-RateLimit-Reset", async () => {
    const stranger = new SupabaseManagementAPI({ accessToken: "sbp_not_a_token" });
    const refused = await stranger.getAuthServiceConfig(ref).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SupabaseManagementAPIError);
    expect(refused).toMatchObject({ status: 401, data: { message: "Unauthorized" } });
    const api = new SupabaseManagementAPI({ accessToken: token });
    const other = await api.getAuthServiceConfig("someoneelsesref0001").catch((e: unknown) => e);
    expect(other).toMatchObject({ status: 404, data: { message: "Project not found" } });
    await configure(HOST, { failures: [{ status: 429, count: 1, on: "read" }] });
    const limited = (await api
      .getAuthServiceConfig(ref)
      .catch((e: unknown) => e)) as SupabaseManagementAPIError;
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("x-ratelimit-reset"))).toBeGreaterThan(0);
  });
});
