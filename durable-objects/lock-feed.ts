/**
 * The dashboard's lock feed: one object that holds the dashboards' WebSockets and tells them when
 * a lock changed. Lock objects call `changed` without awaiting it (durable-objects/feed-notices.ts),
 * so no acquire or release ever waits on this object; a lost notification only delays a page
 * until its fallback refresh. The sockets use the hibernation API: an idle feed with open
 * dashboards costs nothing, and the object wakes only to fan a message out.
 *
 * Messages carry only the lock key and the kind of change; the page re-fetches what it shows
 * through the authenticated dashboard route, so nothing here needs its own access checks beyond
 * the route that upgrades the socket (workers/routes/dashboard.ts) — except that a socket opened
 * for a repository-bound viewer hears no other repository's scope keys.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../shared/env";
import { parseLockKey } from "../shared/lock-keys";
import { LOCK_FEED_NAME, type LockChange, type LockFeedApi } from "../shared/rpc/lock-feed";
import { rpcStub } from "../shared/rpc/stub";

export { LOCK_FEED_NAME, type LockChange };

export class LockFeed extends DurableObject<Env> implements LockFeedApi {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Keep-alive pings are answered without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    // Set by the dashboard route for a repository-bound viewer; kept across hibernation.
    const repository = Number(new URL(request.url).searchParams.get("repository"));
    if (Number.isSafeInteger(repository) && repository > 0) pair[1].serializeAttachment({ repository });
    pair[1].send(JSON.stringify({ type: "hello", at: Date.now() }));
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /** Broadcast one change; answers how many sockets it reached (tests read it). */
  async changed(key: string, change: LockChange): Promise<number> {
    const message = JSON.stringify({ type: "lock", key, change, at: Date.now() });
    let sent = 0;
    const scopeOf = parseLockKey(key);
    for (const ws of this.ctx.getWebSockets()) {
      const bound = (ws.deserializeAttachment() as { repository?: number } | null)?.repository;
      // A bound socket never hears another repository's scope key (it names the scope).
      if (bound !== undefined && scopeOf?.kind === "scope" && scopeOf.repositoryId !== bound) continue;
      if (bound !== undefined && scopeOf === null) continue;
      try {
        ws.send(message);
        sent += 1;
      } catch {
        // A socket closing under us; its close event cleans up.
      }
    }
    return sent;
  }

  override async webSocketMessage(): Promise<void> {
    // Dashboards only listen; anything but the auto-answered ping is ignored.
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    try {
      ws.close(code === 1005 ? 1000 : code, reason);
    } catch {
      // already closed
    }
  }
}

/** Fire-and-forget from a lock object: never awaited, never throws into the caller. */
export function announceLockChange(env: Env, key: string, change: LockChange): void {
  const ns = env.LOCK_FEED;
  if (ns === undefined) return;
  try {
    const stub = rpcStub(ns, LOCK_FEED_NAME);
    stub.changed(key, change).catch(() => {
      // The page's fallback refresh heals a lost notification.
    });
  } catch {
    // Same: a notification is best effort by design.
  }
}
