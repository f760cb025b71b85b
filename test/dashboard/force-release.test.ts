/** Force-release from the dashboard: admins with a reason and a confirmation; CSRF-safe; viewers refused. */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { lockStub, lockTarget } from "../../workers/locks/lock-target";
import { testApp } from "../helpers/app";
import { freshScopeKey } from "../helpers/locks";
import { bearer } from "../helpers/tokens";
import { browserRequest, flashPair, session } from "./session";

const app = testApp();

async function heldLock(holder: string): Promise<string> {
  const key = freshScopeKey("release");
  const grant = await lockTarget(env, key).acquire({
    holder,
    ttlMs: 30_000,
    wait: false,
    waitTimeoutMs: 0,
  });
  if (!grant.ok) throw new Error(grant.error.message);
  return key;
}

const held = async (key: string) => (await lockStub(env, key).read({ key })).held;

describe("dashboard force-release", () => {
  it("an admin releases with a reason and a confirmation; the history names actor and reason", async ({
    expect,
  }) => {
    const key = await heldLock("run-stuck");
    const admin = await session("admin", "alice-admin");
    const res = await browserRequest(app, "POST", "/dashboard/locks/release", {
      cookie: admin.cookie,
      form: { csrf: admin.csrf, key, reason: "runner died", confirm: "yes" },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard");
    const state = await lockStub(env, key).read({ key });
    expect(state.held).toBe(false);
    expect(state.history.at(-1)).toMatchObject({
      transition: "force-released",
      holder: "run-stuck",
      note: "by alice-admin: runner died",
    });
    // The notice travels in the flash cookie the redirect sets (test/dashboard/flash.test.ts).
    const page = await browserRequest(app, "GET", res.headers.get("location") ?? "", {
      cookie: `${admin.cookie}; ${flashPair(res)}`,
    });
    expect(await page.text()).toContain(`Force-released ${key}.`);
  });

  it("a viewer is refused 403 even with a valid CSRF token; the lock stays held", async ({ expect }) => {
    const key = await heldLock("run-keep-1");
    const viewer = await session("viewer");
    const res = await browserRequest(app, "POST", "/dashboard/locks/release", {
      cookie: viewer.cookie,
      form: { csrf: viewer.csrf, key, reason: "just because", confirm: "yes" },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("FORBIDDEN");
    expect(await held(key)).toBe(true);
  });

  it("an admin POST without the CSRF token, with another session's, or from another origin is refused", async ({
    expect,
  }) => {
    const key = await heldLock("run-keep-2");
    const admin = await session("admin");
    const other = await session("admin", "someone-else");
    const attempts: Array<{ form: Record<string, string>; headers?: Record<string, string> }> = [
      { form: { key, reason: "r", confirm: "yes" } },
      { form: { csrf: other.csrf, key, reason: "r", confirm: "yes" } },
      {
        form: { csrf: admin.csrf, key, reason: "r", confirm: "yes" },
        headers: { origin: "https://evil.example" },
      },
      {
        form: { csrf: admin.csrf, key, reason: "r", confirm: "yes" },
        headers: { origin: "", "sec-fetch-site": "cross-site" },
      },
    ];
    for (const attempt of attempts) {
      const res = await browserRequest(app, "POST", "/dashboard/locks/release", {
        cookie: admin.cookie,
        ...attempt,
      });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe("FORBIDDEN");
    }
    // The bearer header alone (no dashboard session) is no way around the CSRF check either.
    const viaHeader = await browserRequest(app, "POST", "/dashboard/locks/release", {
      headers: await bearer("admin"),
      form: { csrf: admin.csrf, key, reason: "r", confirm: "yes" },
    });
    expect(viaHeader.status).toBe(403);
    expect(await held(key)).toBe(true);
  });

  it("without the confirmation or a reason nothing is released", async ({ expect }) => {
    const key = await heldLock("run-keep-3");
    const admin = await session("admin");
    const forms: Array<Record<string, string>> = [
      { csrf: admin.csrf, key, reason: "no confirm" },
      { csrf: admin.csrf, key, reason: "   ", confirm: "yes" },
    ];
    for (const form of forms) {
      const res = await browserRequest(app, "POST", "/dashboard/locks/release", {
        cookie: admin.cookie,
        form,
      });
      expect(res.status).toBe(400);
    }
    expect(await held(key)).toBe(true);
  });
});
