/**
 * The dashboard's notice after an action comes from a server-side flash (docs/security.md,
 * "Dashboard notices"), never from the query string: a link cannot make the page say anything.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { lockTarget } from "../../workers/locks/lock-target";
import { testApp } from "../helpers/app";
import { freshScopeKey } from "../helpers/locks";
import { browserRequest, session } from "./session";

const app = testApp();

/** The `name=value` a Set-Cookie header sets, and its attributes (lower-cased). */
function setCookieOf(
  res: Response,
  name: string,
): { pair: string; value: string; attributes: string[] } | null {
  for (const line of res.headers.getSetCookie()) {
    const [pair = "", ...attributes] = line.split(";").map((p) => p.trim());
    if (pair.startsWith(`${name}=`)) {
      return { pair, value: pair.slice(name.length + 1), attributes: attributes.map((a) => a.toLowerCase()) };
    }
  }
  return null;
}

const FLASH = "__Secure-sponson_flash";

async function heldLock(): Promise<string> {
  const key = freshScopeKey("flash");
  const grant = await lockTarget(env, key).acquire({
    holder: "run-flash",
    ttlMs: 30_000,
    wait: false,
    waitTimeoutMs: 0,
  });
  if (!grant.ok) throw new Error(grant.error.message);
  return key;
}

describe("dashboard notices", () => {
  it.for(["released", "refused", "held", "lifted"])(
    "/dashboard?%s=<attacker text> shows no notice",
    async (param, { expect }) => {
      const admin = await session("admin");
      const text = "scope:1/prod/all — call +1 555 0100 to restore access";
      const res = await browserRequest(app, "GET", `/dashboard?${param}=${encodeURIComponent(text)}`, {
        cookie: admin.cookie,
      });
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).not.toContain("555 0100");
      expect(html).not.toMatch(/<p class="notice (ok|bad)" role="status">/);
    },
  );

  it("a force-release redirects to /dashboard with a flash cookie; the next page shows the notice once", async ({
    expect,
  }) => {
    const key = await heldLock();
    const admin = await session("admin", "flash-admin");
    const res = await browserRequest(app, "POST", "/dashboard/locks/release", {
      cookie: admin.cookie,
      form: { csrf: admin.csrf, key, reason: "runner died", confirm: "yes" },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard");
    const flash = setCookieOf(res, FLASH);
    expect(flash?.attributes).toEqual(
      expect.arrayContaining(["httponly", "secure", "samesite=strict", "path=/dashboard"]),
    );
    // The cookie carries no readable wording: what the page says is the server's.
    expect(flash?.value).not.toContain("Force-released");

    const page = await browserRequest(app, "GET", "/dashboard", {
      cookie: `${admin.cookie}; ${flash?.pair}`,
    });
    expect(await page.text()).toContain(`Force-released ${key}.`);
    // Consumed: the page clears it, so a reload shows nothing.
    expect(setCookieOf(page, FLASH)?.attributes).toContain("max-age=0");
    const reload = await browserRequest(app, "GET", "/dashboard", { cookie: admin.cookie });
    expect(await reload.text()).not.toContain("Force-released");
  });

  it("a flash is good for its own session only, and a forged one says nothing", async ({ expect }) => {
    const key = await heldLock();
    const admin = await session("admin", "flash-owner");
    const other = await session("admin", "flash-other");
    const res = await browserRequest(app, "POST", "/dashboard/locks/release", {
      cookie: admin.cookie,
      form: { csrf: admin.csrf, key, reason: "runner died", confirm: "yes" },
    });
    const flash = setCookieOf(res, FLASH);
    expect(flash).not.toBeNull();
    const elsewhere = await browserRequest(app, "GET", "/dashboard", {
      cookie: `${other.cookie}; ${flash?.pair}`,
    });
    expect(await elsewhere.text()).not.toContain("Force-released");

    const [body = "", mac = ""] = (flash?.value ?? "").split(".");
    const forgedBody = btoa(
      JSON.stringify({ kind: "released", key: "scope:1/prod/everything", at: Date.now() }),
    )
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    // A MAC with its first character changed (to one it is not: a random MAC may start with "x").
    const tampered = `${mac[0] === "x" ? "y" : "x"}${mac.slice(1)}`;
    for (const forged of [`${forgedBody}.${mac}`, `${body}.${tampered}`, "garbage", `${body}`]) {
      const page = await browserRequest(app, "GET", "/dashboard", {
        cookie: `${admin.cookie}; ${FLASH}=${forged}`,
      });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).not.toContain("Force-released");
      expect(html).not.toContain("everything");
    }
  });
});
