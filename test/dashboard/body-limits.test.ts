/**
 * The dashboard's form routes have a body limit like the API's (docs/security.md, "Body limits"),
 * checked before the body is buffered: a declared length over it is refused without reading, and a
 * body that streams without one is cut off where it passes the limit.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DASHBOARD_FORM_MAX_BYTES } from "../../workers/http/body-limits";
import { lockStub } from "../../workers/locks/lock-target";
import { observedApp } from "../helpers/app";
import { browserRequest, ORIGIN, session } from "./session";

const { app, hosts } = observedApp();

/** A form body of `bytes` bytes, as a stream without a Content-Length. */
function streamedForm(bytes: number): ReadableStream<Uint8Array> {
  const chunk = new TextEncoder().encode("x".repeat(1024));
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      controller.enqueue(chunk);
      sent += chunk.byteLength;
    },
  });
}

async function expectTooLarge(res: Response) {
  expect(res.status).toBe(413);
  const problem = (await res.json()) as { code: string; limitBytes: number };
  expect(problem.code).toBe("PAYLOAD_TOO_LARGE");
  expect(problem.limitBytes).toBe(DASHBOARD_FORM_MAX_BYTES);
  expect(res.headers.get("set-cookie")).toBeNull();
  expect(hosts).toEqual([]);
}

describe("dashboard form bodies", () => {
  it("an 8 MiB sign-in form is refused 413 before it is read; no session is set", async () => {
    const token = `token=${"a".repeat(8 * 1024 * 1024)}`;
    await expectTooLarge(await browserRequest(app, "POST", "/dashboard/sign-in", { form: { token } }));
  });

  it("a sign-in form streamed without a Content-Length is cut off at the limit: 413", async () => {
    const res = await app.request(
      `${ORIGIN}/dashboard/sign-in`,
      {
        method: "POST",
        headers: { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
        body: streamedForm(4 * DASHBOARD_FORM_MAX_BYTES),
        duplex: "half",
      } as RequestInit,
      env,
    );
    await expectTooLarge(res);
  });

  it("an oversized force-release form is refused 413 and the lock stays held", async () => {
    const key = `scope:186853002/preview/pr-${Math.floor(Math.random() * 1e6) + 1}`;
    expect((await lockStub(env, key).acquire({ key, holder: "run-held", ttlMs: 600_000 })).ok).toBe(true);
    const admin = await session("admin");
    const res = await browserRequest(app, "POST", "/dashboard/locks/release", {
      cookie: admin.cookie,
      form: { csrf: admin.csrf, key, reason: "x".repeat(DASHBOARD_FORM_MAX_BYTES), confirm: "yes" },
    });
    await expectTooLarge(res);
    expect((await lockStub(env, key).read({ key })).held).toBe(true);
  });

  it("an oversized sign-out form is refused 413 and the session cookie is not cleared", async () => {
    const viewer = await session("viewer");
    const res = await browserRequest(app, "POST", "/dashboard/sign-out", {
      cookie: viewer.cookie,
      form: { csrf: viewer.csrf, pad: "x".repeat(DASHBOARD_FORM_MAX_BYTES) },
    });
    await expectTooLarge(res);
  });

  it("control: a sign-in form of ordinary size is read (303)", async () => {
    const viewer = await session("viewer");
    const res = await browserRequest(app, "POST", "/dashboard/sign-in", { form: { token: viewer.token } });
    expect(res.status).toBe(303);
  });
});
