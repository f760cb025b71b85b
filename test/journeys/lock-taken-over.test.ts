/**
 * Journey (issue 33): a holder's lease expires, another run asks for the lock and takes it over;
 * the lock object puts one `lock-taken-over` notification on the real notifications queue, naming
 * the lock and the previous holder run, and the dev entry's consumer records it at the local sink
 * (`GET /v1/emulators/notifications`). No secret in it.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, testApp } from "../helpers/app";
import { expireLeaseNow, freshScopeKey, granted, rawStub, stub, untilQueued } from "../helpers/locks";

type Recorded = { target: string; body: { id?: string; kind?: string; subject?: Record<string, unknown> } };

const app = testApp();
const TTL_MS = 30_000;

/** Polls the sink (reading state, no fixed sleep) until the background consumer delivered. */
async function recordedFor(lock: string): Promise<Recorded[]> {
  for (let i = 0; i < 3000; i++) {
    const res = await call(app, "GET", "/v1/emulators/notifications");
    expect(res.status).toBe(200);
    const { notifications } = (await res.json()) as { notifications: Recorded[] };
    const ours = notifications.filter((n) => n.body.subject?.lock === lock);
    if (ours.length > 0) return ours;
    await scheduler.wait(5);
  }
  throw new Error(`no notification for ${lock} reached the local sink`);
}

describe("a lock taken over after its holder's lease expired", () => {
  it("is told once: the notification names the lock and the previous holder run", async () => {
    const key = freshScopeKey("takeover");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseNow(key);
    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(b).toMatchObject({ holder: "run-b", token: a.token + 1 });

    const [recorded, ...more] = await recordedFor(key);
    expect(more).toEqual([]);
    expect(recorded?.body).toMatchObject({
      id: `lock-taken-over:${key}:${b.token}`,
      kind: "lock-taken-over",
      subject: {
        lock: key,
        previousHolder: "run-a",
        previousToken: a.token,
        holder: "run-b",
        token: b.token,
      },
    });
    const text = JSON.stringify(recorded);
    for (const secret of [env.GITHUB_WEBHOOK_SECRET, env.AUTH0_CLIENT_SECRET, env.SERVICE_SIGNING_KEY]) {
      expect(typeof secret).toBe("string");
      expect(text).not.toContain(secret as string);
    }
  });

  it("a lock freed by its holder and acquired again is no takeover: nothing is told", async () => {
    const key = freshScopeKey("no-takeover");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await stub(key).release({ key, holder: "run-a", token: a.token });
    granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    // A takeover on another lock after this one: once it is recorded, this one's would be too.
    const marker = freshScopeKey("marker");
    granted(await stub(marker).acquire({ key: marker, holder: "run-c", ttlMs: TTL_MS }));
    await expireLeaseNow(marker);
    granted(await stub(marker).acquire({ key: marker, holder: "run-d", ttlMs: TTL_MS }));
    await recordedFor(marker);
    const res = await call(app, "GET", "/v1/emulators/notifications");
    const { notifications } = (await res.json()) as { notifications: Recorded[] };
    expect(notifications.filter((n) => n.body.subject?.lock === key)).toEqual([]);
  });

  it("a lease that expires with a run waiting: the hand-off to the waiter is told once, naming both", async () => {
    const key = freshScopeKey("handoff");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = stub(key).acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: 60_000,
    });
    await untilQueued(key, 1);
    await expireLeaseNow(key);
    // The alarm the expiry armed: it ends the lease and hands the lock to the waiter.
    await runDurableObjectAlarm(rawStub(key));
    const b = granted(await waiting);
    expect(b).toMatchObject({ holder: "run-b", token: a.token + 1 });
    const history = (await stub(key).read({ key })).history.map((h) => h.transition);
    expect(history.slice(-2)).toEqual(["expired", "acquired"]);

    const [recorded, ...more] = await recordedFor(key);
    expect(more).toEqual([]);
    expect(recorded?.body).toMatchObject({
      id: `lock-taken-over:${key}:${b.token}`,
      kind: "lock-taken-over",
      subject: {
        lock: key,
        previousHolder: "run-a",
        previousToken: a.token,
        holder: "run-b",
        token: b.token,
      },
    });
    const text = JSON.stringify(recorded);
    for (const secret of [env.GITHUB_WEBHOOK_SECRET, env.AUTH0_CLIENT_SECRET, env.SERVICE_SIGNING_KEY]) {
      expect(text).not.toContain(secret as string);
    }
  });

  it("a lease released in time and handed to a waiter is no takeover: nothing is told", async () => {
    const key = freshScopeKey("handoff-released");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = stub(key).acquire({
      key,
      holder: "run-b",
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: 60_000,
    });
    await untilQueued(key, 1);
    await stub(key).release({ key, holder: "run-a", token: a.token });
    granted(await waiting);
    const marker = freshScopeKey("handoff-marker");
    granted(await stub(marker).acquire({ key: marker, holder: "run-c", ttlMs: TTL_MS }));
    await expireLeaseNow(marker);
    granted(await stub(marker).acquire({ key: marker, holder: "run-d", ttlMs: TTL_MS }));
    await recordedFor(marker);
    const res = await call(app, "GET", "/v1/emulators/notifications");
    const { notifications } = (await res.json()) as { notifications: Recorded[] };
    expect(notifications.filter((n) => n.body.subject?.lock === key)).toEqual([]);
  });
});
