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
 * for a repository-bound caller hears only of locks its repository uses (`audienceOf`, below), and
 * that a socket lives no longer than its token (./feed-sockets.ts): checked at every event and by
 * an alarm at the earliest expiry, so a revoked or expired token's socket hears nothing more.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../shared/env";
import { parseLockKey } from "../shared/lock-keys";
import { namedRuns, owningRepositories, parentVisible } from "../shared/lock-visibility";
import type { LeaseLockApi } from "../shared/rpc/lease-lock";
import { LOCK_FEED_NAME, type LockChange, type LockFeedApi } from "../shared/rpc/lock-feed";
import { rpcStub } from "../shared/rpc/stub";
import type { LockState } from "../shared/schemas/lock";
import {
  closingOf,
  type FeedSocket,
  feedSocketOf,
  feedSocketSchema,
  nextExpiry,
  openRefusal,
} from "./feed-sockets";

export { LOCK_FEED_NAME, type LockChange };

/** The soonest the expiry alarm comes back after it ran. */
const ALARM_RETRY_MS = 1_000;

/**
 * What the Worker hands the feed (workers/wiring/objects.ts): the service-token deny list is the
 * Worker's (docs/security.md, "Service tokens"); the lock layer imports nothing from workers/.
 */
export interface LockFeedDeps {
  /** The ids among `jtis` that are revoked; rejects when the deny list cannot be read. */
  revokedAmong(bucket: R2Bucket, jtis: Iterable<string>): Promise<Set<string>>;
}

export class LockFeed extends DurableObject<Env> implements LockFeedApi {
  readonly #deps: LockFeedDeps;

  /** Built by the Worker's entry with its dependencies (workers/wiring/objects.ts). */
  constructor(ctx: DurableObjectState, env: Env, deps: LockFeedDeps) {
    super(ctx, env);
    this.#deps = deps;
    // Keep-alive pings are answered without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    // Set by the dashboard route from the verified token (workers/routes/dashboard.ts).
    const raw = new URL(request.url).searchParams.get("socket");
    let parsed: unknown = null;
    try {
      parsed = raw === null ? null : JSON.parse(raw);
    } catch {
      // refused below
    }
    const socket = feedSocketSchema.safeParse(parsed);
    if (!socket.success) return new Response("no valid socket record", { status: 400 });
    // No await between the count and the accept: two upgrades cannot both pass a limit.
    const refusal = openRefusal(
      this.#open().map(([, s]) => s),
      socket.data.owner,
      socket.data.repository,
    );
    // The body names which limit, for the route's problem (workers/routes/dashboard.ts).
    if (refusal !== null) return new Response(refusal, { status: 429 });
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    // Kept across hibernation, read back at every event.
    pair[1].serializeAttachment(socket.data);
    pair[1].send(JSON.stringify({ type: "hello", at: Date.now() }));
    await this.#wakeBy(socket.data.expiresAt);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /** Broadcast one change; answers how many sockets it reached (tests read it). */
  async changed(key: string, change: LockChange): Promise<number> {
    const message = JSON.stringify({ type: "lock", key, change, at: Date.now() });
    const open = this.#open();
    // One deny-list read per distinct token id per broadcast; if it fails, nobody hears this
    // change (the pages' fallback refresh does) rather than a revoked socket hearing it.
    const revoked = await this.#deps.revokedAmong(
      this.env.RECEIPTS,
      open.flatMap(([, s]) => (s?.tokenId === undefined ? [] : [s.tokenId])),
    );
    // Which bound repositories may hear of this key; if that cannot be read, none of them does.
    const bound = new Set(open.flatMap(([, s]) => (s?.repository === undefined ? [] : [s.repository])));
    const audience = await audienceOf(this.env, key, bound).catch(() => new Set<number>());
    const now = Date.now();
    let sent = 0;
    for (const [ws, socket] of open) {
      const closing = closingOf(socket, now, revoked);
      if (closing !== null) {
        closeQuietly(ws, closing.code, closing.reason);
        continue;
      }
      // A bound socket hears only of locks its repository uses.
      if (socket?.repository !== undefined && !audience.has(socket.repository)) continue;
      try {
        ws.send(message);
        sent += 1;
      } catch {
        // A socket closing under us; its close event cleans up.
      }
    }
    return sent;
  }

  /** At the earliest token expiry: close what expired even when no lock changes. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    for (const [ws, socket] of this.#open()) {
      const closing = closingOf(socket, now, new Set());
      if (closing !== null) closeQuietly(ws, closing.code, closing.reason);
    }
    const next = nextExpiry(this.#open().map(([, s]) => s));
    // Never in the past: a socket that would not close must not spin the alarm.
    if (next !== null) await this.ctx.storage.setAlarm(Math.max(next, now + ALARM_RETRY_MS));
  }

  /** The open sockets with their records. */
  #open(): Array<[WebSocket, FeedSocket | null]> {
    return this.ctx
      .getWebSockets()
      .filter((ws) => ws.readyState === WebSocket.READY_STATE_OPEN)
      .map((ws) => [ws, feedSocketOf(ws.deserializeAttachment())]);
  }

  /** Moves the alarm earlier when this expiry comes first; alarms may fire early or twice (alarm re-reads). */
  async #wakeBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || at < current) await this.ctx.storage.setAlarm(at);
  }

  override async webSocketMessage(): Promise<void> {
    // Dashboards only listen; anything but the auto-answered ping is ignored.
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    closeQuietly(ws, code === 1005 ? 1000 : code, reason);
  }
}

function closeQuietly(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.close(code, reason);
  } catch {
    // already closed
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

/**
 * Which repositories' bound sockets may hear of one lock's change (docs/security.md, "The lock
 * feed" and "What a repository sees of another"): a scope lock's own repository; a parent lock's,
 * each repository that uses its object — one of its scopes owns an entry there, or one of its runs
 * holds or waits on the lock, confirmed by that run's own scope lock, as the Worker's views decide
 * (workers/lock-views/). Read from the lock objects, read-only, and only while bound sockets are
 * open. A run that has just left a lock whose object its repository owns nothing on is no longer
 * heard of there; its scope lock's own change, which follows, refreshes its page.
 */
type Lock = (key: string) => LeaseLockApi;

/** The repositories among `bound` that may hear of a change of `key`. */
export async function audienceOf(env: Env, key: string, bound: ReadonlySet<number>): Promise<Set<number>> {
  const parsed = parseLockKey(key);
  if (bound.size === 0 || parsed === null) return new Set();
  if (parsed.kind === "scope") return new Set(bound.has(parsed.repositoryId) ? [parsed.repositoryId] : []);
  const lock: Lock = (k) => rpcStub(env.LEASE_LOCK, k);
  const [state, ownership] = await Promise.all([lock(key).read({ key }), lock(key).ownership({ key })]);
  const owners = owningRepositories(ownership.items);
  const heard = await Promise.all(
    [...bound].map(async (id) => {
      if (owners.has(id)) return id;
      const runs = await confirmedRuns(lock, state, id);
      return parentVisible(state, { id, runs }, owners) ? id : null;
    }),
  );
  return new Set(heard.filter((id): id is number => id !== null));
}

/** The runs `state` names whose own scope lock, in the repository, says they hold or wait on it. */
async function confirmedRuns(lock: Lock, state: LockState, repositoryId: number): Promise<Set<string>> {
  const confirmed = await Promise.all(
    namedRuns(state).map(async ({ run, scope }) => {
      const key = `scope:${repositoryId}/${scope}`;
      const parsed = parseLockKey(key);
      if (parsed?.kind !== "scope" || parsed.repositoryId !== repositoryId) return null;
      const own = await lock(key).read({ key });
      return own.holder === run || own.waiters.some((w) => w.holder === run) ? run : null;
    }),
  );
  return new Set(confirmed.filter((run): run is string => run !== null));
}
