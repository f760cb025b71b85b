/**
 * The emulated Kinde Management API answers the documented requests with the documented shapes (Kinde
 * Management API reference).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../../dev/emulators/transport";
import { configureHost } from "../../helpers/emulators";
import { freshKindeDomain, seedKinde } from "../../helpers/emulators-kinde";

const send = providerFetch(env);

async function business() {
  const domain = freshKindeDomain();
  await seedKinde(domain, {
    m2m: { clientId: "m2m", clientSecret: "kinde-secret" },
    apps: { app1: { redirect_urls: ["https://a.example.com/cb"], logout_urls: ["https://a.example.com"] } },
  });
  const token = await send(`https://${domain}/oauth2/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: "m2m",
      client_secret: "kinde-secret",
      audience: `https://${domain}/api`,
    }),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const base = `https://${domain}/api/v1/applications/app1`;
  return {
    domain,
    base,
    auth: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
  };
}

describe("Kinde emulator fidelity", () => {
  it("GET auth_redirect_urls → {redirect_urls}; GET auth_logout_urls → {logout_urls, code, message}", async () => {
    const k = await business();
    expect(await (await send(`${k.base}/auth_redirect_urls`, { headers: k.auth })).json()).toEqual({
      redirect_urls: ["https://a.example.com/cb"],
    });
    expect(await (await send(`${k.base}/auth_logout_urls`, { headers: k.auth })).json()).toEqual({
      logout_urls: ["https://a.example.com"],
      code: "OK",
      message: "Success",
    });
  });

  it("POST {urls} adds, DELETE ?urls=a,b removes the comma-separated list, PUT replaces; each answers {code: OK}", async () => {
    const k = await business();
    const list = async () =>
      (
        (await (await send(`${k.base}/auth_redirect_urls`, { headers: k.auth })).json()) as {
          redirect_urls: string[];
        }
      ).redirect_urls;
    const post = await send(`${k.base}/auth_redirect_urls`, {
      method: "POST",
      headers: k.auth,
      body: JSON.stringify({ urls: ["https://b.example.com/cb", "https://c.example.com/cb"] }),
    });
    expect([post.status, await post.json()]).toEqual([200, { code: "OK", message: "Success" }]);
    expect(await list()).toEqual([
      "https://a.example.com/cb",
      "https://b.example.com/cb",
      "https://c.example.com/cb",
    ]);
    const urls = encodeURIComponent("https://a.example.com/cb,https://c.example.com/cb");
    expect(
      (await send(`${k.base}/auth_redirect_urls?urls=${urls}`, { method: "DELETE", headers: k.auth })).status,
    ).toBe(200);
    expect(await list()).toEqual(["https://b.example.com/cb"]);
    await send(`${k.base}/auth_redirect_urls`, {
      method: "PUT",
      headers: k.auth,
      body: JSON.stringify({ urls: ["https://z.example.com/cb"] }),
    });
    expect(await list()).toEqual(["https://z.example.com/cb"]);
  });

  it("errors are {errors:[{code, message}]}: 403 for a bad token; a 429 carries only RateLimit-Reset", async () => {
    const k = await business();
    const bad = await send(`${k.base}/auth_redirect_urls`, { headers: { authorization: "Bearer nope" } });
    expect([bad.status, await bad.json()]).toEqual([
      403,
      { errors: [{ code: "INVALID_CREDENTIALS", message: "Invalid credentials used to access API" }] },
    ]);
    await configureHost(k.domain, { failures: [{ status: 429, count: 1, on: "read" }] });
    const limited = await send(`${k.base}/auth_redirect_urls`, { headers: k.auth });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("ratelimit-reset")).toBe("3");
    expect(limited.headers.get("x-ratelimit-reset")).toBeNull();
  });
});
