/**
 * The lock feed's sockets live no longer than the token that opened them (docs/security.md, "The
 * lock feed"): a revoked or expired token's socket is closed at the next event and hears nothing
 * after; one token opens at most MAX_FEED_SOCKETS_PER_TOKEN sockets; a browser's socket must come
 * from the service's own origin, a tool's (no Origin) is accepted.
 */
import {
  createExecutionContext,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { decodeJwt } from "jose";
import { describe, it } from "vitest";
import { MAX_FEED_SOCKETS_PER_TOKEN } from "../../durable-objects/feed-sockets";
import { LOCK_FEED_NAME } from "../../shared/rpc/lock-feed";
import { lockTarget } from "../../workers/locks/lock-target";
import { call, testApp } from "../helpers/app";
import { freshScopeKey } from "../helpers/locks";
import { mintServiceToken } from "../helpers/tokens";
import { ORIGIN } from "./session";

const app = testApp();

interface FeedSocket {
  status: number;
  body: { code?: string; rule?: string; reason?: string } | null;
  ws: WebSocket | null;
  /** Every lock message this socket heard. */
  heard: string[];
  closed: Promise<{ code: number; reason: string }>;
}

async function openFeed(headers: Record<string, string>): Promise<FeedSocket> {
  const ctx = createExecutionContext();
  const res = await app.request(
    `${ORIGIN}/dashboard/feed`,
    { headers: { upgrade: "websocket", ...headers } },
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const ws = res.webSocket;
  if (!ws) {
    const body = (await res.json().catch(() => null)) as FeedSocket["body"];
    return { status: res.status, body, ws: null, heard: [], closed: new Promise(() => {}) };
  }
  const heard: string[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason }));
  });
  const hello = new Promise<void>((resolve) => {
    ws.addEventListener("message", (event) => {
      const m = JSON.parse(String(event.data)) as { type: string; key?: string };
      if (m.type === "hello") resolve();
      if (m.key) heard.push(m.key);
    });
  });
  ws.accept();
  await hello;
  return { status: res.status, body: null, ws, heard, closed };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** One lock change, fanned out to every open socket. */
async function lockEvent(): Promise<string> {
  const key = freshScopeKey("feed-token");
  const grant = await lockTarget(env, key).acquire({
    holder: "run-f",
    ttlMs: 30_000,
    wait: false,
    waitTimeoutMs: 0,
  });
  if (!grant.ok) throw new Error(grant.error.message);
  return key;
}

function heardKey(socket: FeedSocket, key: string): Promise<void> {
  return new Promise((resolve) => {
    const ws = socket.ws;
    if (!ws) throw new Error("no socket");
    if (socket.heard.includes(key)) return resolve();
    ws.addEventListener("message", (event) => {
      if (String(event.data).includes(key)) resolve();
    });
  });
}

function feedStub() {
  const ns = env.LOCK_FEED;
  if (!ns) throw new Error("LOCK_FEED not bound");
  return ns.get(ns.idFromName(LOCK_FEED_NAME));
}

/** The attachments of the feed's open sockets (what the object keeps across hibernation). */
async function openSockets(): Promise<Array<Record<string, unknown>>> {
  return runInDurableObject(feedStub(), async (_instance, state) =>
    state
      .getWebSockets()
      .filter((ws) => ws.readyState === WebSocket.READY_STATE_OPEN)
      .map((ws) => (ws.deserializeAttachment() ?? {}) as Record<string, unknown>),
  );
}

/**
 * Moves the recorded expiry of this subject's sockets into the past, as if their token's time had
 * run out: the way these tests let time pass without sleeping. Answers how many it moved.
 */
async function expireSockets(subject: string): Promise<number> {
  return runInDurableObject(feedStub(), async (_instance, state) => {
    let moved = 0;
    for (const ws of state.getWebSockets()) {
      const record = ws.deserializeAttachment() as { owner?: string; expiresAt?: number } | null;
      if (!record?.owner?.includes(subject)) continue;
      ws.serializeAttachment({ ...record, expiresAt: Date.now() - 1 });
      moved += 1;
    }
    return moved;
  });
}

describe("the lock feed's sockets and their tokens", () => {
  it("a revoked token's socket is closed at the next event and hears nothing after; another's hears it", async ({
    expect,
  }) => {
    const jti = `feed-revoked-${crypto.randomUUID()}`;
    const revoked = await openFeed(bearer(await mintServiceToken({ role: "viewer", sub: "feed-r", jti })));
    const control = await openFeed(bearer(await mintServiceToken({ role: "viewer", sub: "feed-c" })));
    expect([revoked.status, control.status]).toEqual([101, 101]);

    const res = await call(app, "POST", "/v1/tokens/revoked", { jti, reason: "laptop lost" });
    expect(res.status).toBe(200);
    const controlHeard = new Promise<string>((resolve) => {
      control.ws?.addEventListener("message", (event) => resolve(String(event.data)));
    });
    const event = await lockEvent();
    expect(await revoked.closed).toEqual({ code: 4403, reason: "token revoked" });
    await heardKey(control, event);
    expect(await controlHeard).toContain(event);
    expect(revoked.heard).toEqual([]);
    control.ws?.close(1000, "done");
  });

  it("the socket records its token's real expiry (exp in ms), as the route read it from the token", async ({
    expect,
  }) => {
    const jti = `feed-exp-${crypto.randomUUID()}`;
    const token = await mintServiceToken({ role: "viewer", sub: "feed-exp", jti, ttlSeconds: 90 });
    const opened = await openFeed(bearer(token));
    expect(opened.status).toBe(101);
    const exp = decodeJwt(token).exp as number;
    expect((await openSockets()).filter((s) => s.tokenId === jti)).toEqual([
      expect.objectContaining({ expiresAt: exp * 1000 }),
    ]);
    opened.ws?.close(1000, "done");
  });

  it("an expired token's socket is closed 4401 at the next event and hears nothing", async ({ expect }) => {
    const sub = `feed-expiring-${crypto.randomUUID()}`;
    const expiring = await openFeed(bearer(await mintServiceToken({ role: "viewer", sub })));
    const control = await openFeed(bearer(await mintServiceToken({ role: "viewer", sub: "feed-c2" })));
    expect([expiring.status, control.status]).toEqual([101, 101]);
    expect(await expireSockets(sub)).toBe(1);
    const event = await lockEvent();
    expect(await expiring.closed).toEqual({ code: 4401, reason: "token expired" });
    await heardKey(control, event);
    expect(expiring.heard).toEqual([]);
    control.ws?.close(1000, "done");
  });

  it("an expired token's socket is closed by the feed's alarm when no lock changes", async ({ expect }) => {
    const sub = `feed-quiet-${crypto.randomUUID()}`;
    const quiet = await openFeed(bearer(await mintServiceToken({ role: "viewer", sub })));
    expect(quiet.status).toBe(101);
    expect(await expireSockets(sub)).toBe(1);
    expect(await runDurableObjectAlarm(feedStub())).toBe(true);
    expect(await quiet.closed).toEqual({ code: 4401, reason: "token expired" });
    expect(quiet.heard).toEqual([]);
  });

  it("a token already past its expiry is refused 401 before any upgrade, even inside the clock tolerance", async ({
    expect,
  }) => {
    const sub = `feed-late-${crypto.randomUUID()}`;
    const late = await openFeed(bearer(await mintServiceToken({ role: "viewer", sub, ttlSeconds: -5 })));
    expect(late.status).toBe(401);
    expect(late.body).toMatchObject({ code: "UNAUTHENTICATED", reason: "expired" });
    expect((await openSockets()).filter((s) => String(s.owner).includes(sub))).toEqual([]);
  });

  it(`one token opens at most ${MAX_FEED_SOCKETS_PER_TOKEN} sockets: the next is refused 429 before any upgrade`, async ({
    expect,
  }) => {
    const jti = `feed-limit-${crypto.randomUUID()}`;
    const token = await mintServiceToken({ role: "viewer", sub: "feed-limit", jti });
    const sockets: FeedSocket[] = [];
    for (let i = 0; i < MAX_FEED_SOCKETS_PER_TOKEN; i++) sockets.push(await openFeed(bearer(token)));
    expect(sockets.map((s) => s.status)).toEqual(Array(MAX_FEED_SOCKETS_PER_TOKEN).fill(101));
    const refused = await openFeed(bearer(token));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: "RATE_LIMITED", rule: "feed.sockets-per-token" });
    expect((await openSockets()).filter((s) => s.tokenId === jti)).toHaveLength(MAX_FEED_SOCKETS_PER_TOKEN);
    // The same subject with another token id is another token: its own budget.
    const other = await openFeed(bearer(await mintServiceToken({ role: "viewer", sub: "feed-limit" })));
    expect(other.status).toBe(101);
    for (const s of [...sockets, other]) s.ws?.close(1000, "done");
  });

  it("a browser socket from a foreign or opaque origin is refused 403 and no socket is accepted", async ({
    expect,
  }) => {
    for (const origin of ["https://evil.example", "null", "http://sponson.test.evil.example"]) {
      const sub = `feed-origin-${crypto.randomUUID()}`;
      const token = await mintServiceToken({ role: "viewer", sub });
      const res = await openFeed({ ...bearer(token), origin });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: "FORBIDDEN", rule: "feed.origin" });
      expect((await openSockets()).filter((s) => String(s.owner).includes(sub))).toEqual([]);
    }
  });

  it("a socket from the service's own origin, from SPONSON_PUBLIC_URL, or from a tool without Origin is accepted", async ({
    expect,
  }) => {
    const token = await mintServiceToken({ role: "viewer", sub: "feed-origins" });
    const opened = [
      await openFeed({ ...bearer(token), origin: ORIGIN }),
      await openFeed({ ...bearer(token), origin: "https://sponson.test" }),
      await openFeed(bearer(token)),
    ];
    expect(opened.map((s) => s.status)).toEqual([101, 101, 101]);
    for (const s of opened) s.ws?.close(1000, "done");
  });
});
