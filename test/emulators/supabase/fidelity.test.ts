/**
 * The emulated Supabase Management API answers the documented requests with the documented shapes
 * (Supabase Management API reference): GET/PATCH /v1/projects/{ref}/config/auth, `{ message }` errors,
 * X-RateLimit-*.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../../dev/emulators/transport";
import { configureHost } from "../../helpers/emulators";
import {
  freshSupabaseProject,
  SUPABASE_HOST,
  seedSupabaseProject,
  seedSupabaseToken,
} from "../../helpers/emulators-supabase";

const send = providerFetch(env);

async function project(allowList = "http://localhost:3000") {
  const { ref, token } = freshSupabaseProject();
  await seedSupabaseProject(ref, { uri_allow_list: allowList, site_url: "http://localhost:3000" });
  await seedSupabaseToken(token, { projects: [ref] });
  const url = `https://${SUPABASE_HOST}/v1/projects/${ref}/config/auth`;
  return { ref, token, url, auth: { authorization: `Bearer ${token}` } };
}

describe("Supabase emulator fidelity", () => {
  it("GET config/auth → 200 with site_url and the allow-list as one string, plus rate-limit headers", async () => {
    const p = await project("http://localhost:3000,https://app.example.com/**");
    const res = await send(p.url, { headers: p.auth });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      site_url: "http://localhost:3000",
      uri_allow_list: "http://localhost:3000,https://app.example.com/**",
    });
    expect(res.headers.get("x-ratelimit-limit")).toBe("120");
    expect(Number(res.headers.get("x-ratelimit-remaining"))).toBe(119);
    // Seconds until the window resets, not an epoch time.
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(0);
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBeLessThanOrEqual(60);
  });

  it("PATCH { uri_allow_list } → 200 and the full config, other fields untouched", async () => {
    const p = await project();
    const res = await send(p.url, {
      method: "PATCH",
      headers: { ...p.auth, "content-type": "application/json" },
      body: JSON.stringify({ uri_allow_list: "a,b" }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      uri_allow_list: "a,b",
      site_url: "http://localhost:3000",
      jwt_exp: 3600,
    });
  });

  it("errors are { message }: 401 without a valid token, 404 for another project, 400 for a bad type", async () => {
    const p = await project();
    const noToken = await send(p.url);
    expect([noToken.status, await noToken.json()]).toEqual([401, { message: "Unauthorized" }]);
    const other = await send(p.url.replace(p.ref, "someoneelsesproject0"), { headers: p.auth });
    expect([other.status, await other.json()]).toEqual([404, { message: "Project not found" }]);
    const bad = await send(p.url, {
      method: "PATCH",
      headers: { ...p.auth, "content-type": "application/json" },
      body: JSON.stringify({ uri_allow_list: ["a"] }),
    });
    expect([bad.status, await bad.json()]).toEqual([400, { message: "uri_allow_list must be a string" }]);
  });

  it("past 120 requests a minute the token gets 429 with X-RateLimit-Remaining 0", async () => {
    const p = await project();
    const statuses: number[] = [];
    for (let i = 0; i < 121; i += 1) statuses.push((await send(p.url, { headers: p.auth })).status);
    expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true);
    const limited = await send(p.url, { headers: p.auth });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(statuses[120]).toBe(429);
  });

  it("an injected 429 carries the same headers", async () => {
    const p = await project();
    await configureHost(SUPABASE_HOST, { failures: [{ status: 429, count: 1, on: "read" }] });
    const res = await send(p.url, { headers: p.auth });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ message: "Too many requests" });
    expect(res.headers.get("x-ratelimit-reset")).toBe("5");
  });
});
