/** Signing in to the dashboard: the cookie's flags, refusals, and that no token is echoed back. */
import { describe, it } from "vitest";
import { SESSION_COOKIE } from "../../workers/auth/dashboard-session";
import { testApp } from "../helpers/app";
import { bearer, mintServiceToken } from "../helpers/tokens";
import { browserRequest, session } from "./session";

const app = testApp();

describe("dashboard sign-in", () => {
  it("a viewer token becomes an HttpOnly, Secure, SameSite=Strict host cookie and opens the page", async ({
    expect,
  }) => {
    const token = await mintServiceToken({ role: "viewer", ttlSeconds: 600 });
    const res = await browserRequest(app, "POST", "/dashboard/sign-in", { form: { token } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard");
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie.startsWith(`${SESSION_COOKIE}=${token};`)).toBe(true);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Domain=/i);
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)?.[1]);
    expect(maxAge).toBeGreaterThan(500);
    expect(maxAge).toBeLessThanOrEqual(600);

    const page = await browserRequest(app, "GET", "/dashboard", { cookie: `${SESSION_COOKIE}=${token}` });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Held locks");
    expect(html).toContain("test-viewer · viewer");
    expect(html).not.toContain(token);
    expect(html).not.toContain(token.split(".")[2]);
  });

  it("a bad token goes back to the form with a fixed message; nothing of it is rendered", async ({
    expect,
  }) => {
    const forged = `${(await mintServiceToken({ role: "admin" })).slice(0, -6)}AAAAAA`;
    const res = await browserRequest(app, "POST", "/dashboard/sign-in", { form: { token: forged } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in?error=invalid");
    expect(res.headers.get("set-cookie") ?? "").toMatch(new RegExp(`^${SESSION_COOKIE}=;`));
    const form = await browserRequest(app, "GET", "/dashboard/sign-in?error=invalid");
    const html = await form.text();
    expect(html).toContain("That token was not accepted");
    expect(html).not.toContain(forged.slice(0, 30));
  });

  it("a sign-in posted from another site is refused (login CSRF) and sets no cookie", async ({ expect }) => {
    const token = await mintServiceToken({ role: "viewer" });
    const res = await browserRequest(app, "POST", "/dashboard/sign-in", {
      form: { token },
      headers: { origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(((await res.json()) as { code: string }).code).toBe("FORBIDDEN");
  });

  it("without a session the page redirects to the form; an expired session is cleared", async ({
    expect,
  }) => {
    const none = await browserRequest(app, "GET", "/dashboard");
    expect(none.status).toBe(303);
    expect(none.headers.get("location")).toBe("/dashboard/sign-in");

    const expired = await mintServiceToken({ role: "viewer", ttlSeconds: -120 });
    const res = await browserRequest(app, "GET", "/dashboard", { cookie: `${SESSION_COOKIE}=${expired}` });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in?error=expired");
    expect(res.headers.get("set-cookie") ?? "").toMatch(new RegExp(`^${SESSION_COOKIE}=;.*Max-Age=0`));
  });

  it("the cookie is no credential for the JSON API: /v1 stays bearer-only", async ({ expect }) => {
    const viewer = await session("viewer");
    const res = await browserRequest(app, "GET", "/v1/locks", { cookie: viewer.cookie });
    expect(res.status).toBe(401);
    const ok = await browserRequest(app, "GET", "/v1/locks", { headers: await bearer("viewer") });
    expect(ok.status).toBe(200);
  });

  it("sign-out clears the cookie, but only with the session's CSRF token", async ({ expect }) => {
    const viewer = await session("viewer");
    const forged = await browserRequest(app, "POST", "/dashboard/sign-out", {
      cookie: viewer.cookie,
      form: { csrf: "nope" },
    });
    expect(forged.status).toBe(403);
    const res = await browserRequest(app, "POST", "/dashboard/sign-out", {
      cookie: viewer.cookie,
      form: { csrf: viewer.csrf },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in?signed-out=1");
    expect(res.headers.get("set-cookie") ?? "").toMatch(/Max-Age=0/);
  });
});
