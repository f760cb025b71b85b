/** The lock feed: a dashboard socket hears about a lock the moment its object changes. */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { lockStub, lockTarget } from "../../workers/locks/lock-target";
import { testApp } from "../helpers/app";
import { freshScopeKey } from "../helpers/locks";
import { browserRequest, session } from "./session";

const app = testApp();

function nextMessage(
  ws: WebSocket,
  predicate: (m: { type: string; key?: string; change?: string }) => boolean,
) {
  return new Promise<{ type: string; key?: string; change?: string }>((resolve) => {
    const onMessage = (event: MessageEvent) => {
      const message = JSON.parse(String(event.data)) as { type: string; key?: string; change?: string };
      if (!predicate(message)) return;
      ws.removeEventListener("message", onMessage);
      resolve(message);
    };
    ws.addEventListener("message", onMessage);
  });
}

describe("the dashboard's lock feed", () => {
  it("a viewer's socket is told when a lock is taken and when it is freed", async ({ expect }) => {
    const viewer = await session("viewer");
    const res = await browserRequest(app, "GET", "/dashboard/feed", {
      cookie: viewer.cookie,
      headers: { upgrade: "websocket" },
    });
    expect(res.status).toBe(101);
    const ws = res.webSocket;
    if (!ws) throw new Error("no WebSocket in the upgrade response");
    const hello = nextMessage(ws, (m) => m.type === "hello");
    ws.accept();
    await hello;

    const key = freshScopeKey("feed");
    const taken = nextMessage(ws, (m) => m.key === key && m.change === "held");
    const grant = await lockTarget(env, key).acquire({
      holder: "run-feed",
      ttlMs: 30_000,
      wait: false,
      waitTimeoutMs: 0,
    });
    expect(grant.ok).toBe(true);
    expect(await taken).toMatchObject({ type: "lock", key, change: "held" });

    const freed = nextMessage(ws, (m) => m.key === key && m.change === "free");
    if (grant.ok) await lockStub(env, key).release({ key, holder: "run-feed", token: grant.value.token });
    expect(await freed).toMatchObject({ type: "lock", key, change: "free" });
    ws.close(1000, "done");
  });

  it("an upgrade from another origin or without a session is refused", async ({ expect }) => {
    const viewer = await session("viewer");
    const crossSite = await browserRequest(app, "GET", "/dashboard/feed", {
      cookie: viewer.cookie,
      headers: { upgrade: "websocket", origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(403);
    const anonymous = await browserRequest(app, "GET", "/dashboard/feed", {
      headers: { upgrade: "websocket" },
    });
    expect(anonymous.status).toBe(401);
  });
});
