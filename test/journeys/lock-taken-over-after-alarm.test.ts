/**
 * Journey (issue 33 review): the production path of an expiry. The object's alarm fires at the
 * lease's expiry and frees it (`expired`); the lock-delay keeps the lock free for a while, and the
 * grant after it (to a waiter, to a newcomer, or after an admin's hold is lifted) is a takeover
 * after an expiry all the same: one `lock-taken-over` at the local sink, naming both runs. A
 * release in time and a force-release tell nothing.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, testApp } from "../helpers/app";
import {
  endLockDelay,
  expireLeaseJustNow,
  expireLeaseNow,
  freshScopeKey,
  granted,
  rawStub,
  stub,
  untilQueued,
} from "../helpers/locks";

type Recorded = { target: string; body: { id?: string; kind?: string; subject?: Record<string, unknown> } };

const app = testApp();
const TTL_MS = 30_000;
const HOUR_MS = 3_600_000;

async function sink(): Promise<Recorded[]> {
  const res = await call(app, "GET", "/v1/emulators/notifications");
  expect(res.status).toBe(200);
  return ((await res.json()) as { notifications: Recorded[] }).notifications;
}

/** Polls the sink (reading state, no fixed sleep) until the background consumer delivered. */
async function recordedFor(lock: string): Promise<Recorded[]> {
  for (let i = 0; i < 3000; i++) {
    const ours = (await sink()).filter((n) => n.body.subject?.lock === lock);
    if (ours.length > 0) return ours;
    await scheduler.wait(5);
  }
  throw new Error(`no notification for ${lock} reached the local sink`);
}

/** Nothing for `key`: checked after a takeover on a marker lock made later has been recorded. */
async function expectNothingFor(key: string): Promise<void> {
  const marker = freshScopeKey("marker");
  granted(await stub(marker).acquire({ key: marker, holder: "run-m", ttlMs: TTL_MS }));
  await expireLeaseNow(marker);
  granted(await stub(marker).acquire({ key: marker, holder: "run-n", ttlMs: TTL_MS }));
  await recordedFor(marker);
  expect((await sink()).filter((n) => n.body.subject?.lock === key)).toEqual([]);
}

function waitFor(key: string, holder: string) {
  return stub(key).acquire({ key, holder, ttlMs: TTL_MS, wait: true, waitTimeoutMs: 60_000 });
}

async function expectToldOnce(key: string, previous: { token: number }, next: { token: number }) {
  const [recorded, ...more] = await recordedFor(key);
  expect(more).toEqual([]);
  expect(recorded?.body).toMatchObject({
    id: `lock-taken-over:${key}:${next.token}`,
    kind: "lock-taken-over",
    subject: {
      lock: key,
      previousHolder: "run-a",
      previousToken: previous.token,
      holder: "run-b",
      token: next.token,
    },
  });
}

describe("a lock taken over after the alarm expired its lease", () => {
  it("the waiter granted after the lock-delay: told once, naming run-a and run-b", async () => {
    const key = freshScopeKey("alarm-handoff");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = waitFor(key, "run-b");
    await untilQueued(key, 1);
    await expireLeaseJustNow(key);
    // The alarm at the expiry frees the lease; the lock-delay keeps the waiter waiting.
    await runDurableObjectAlarm(rawStub(key));
    await endLockDelay(key);
    // The alarm at the lock-delay's end hands the lock to the waiter.
    await runDurableObjectAlarm(rawStub(key));
    const b = granted(await waiting);
    expect(b).toMatchObject({ holder: "run-b", token: a.token + 1 });
    const history = (await stub(key).read({ key })).history.map((h) => h.transition);
    expect(history.slice(-3)).toEqual(["acquired", "expired", "acquired"]);
    await expectToldOnce(key, a, b);
  });

  it("a newcomer granted after the alarm freed the lease: told once", async () => {
    const key = freshScopeKey("alarm-newcomer");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    await expireLeaseJustNow(key);
    await runDurableObjectAlarm(rawStub(key));
    expect((await stub(key).read({ key })).held).toBe(false);
    await endLockDelay(key);
    const b = granted(await stub(key).acquire({ key, holder: "run-b", ttlMs: TTL_MS }));
    expect(b.token).toBe(a.token + 1);
    await expectToldOnce(key, a, b);
    // The record is consumed: the next plain grant after a release in time is no takeover.
    await stub(key).release({ key, holder: "run-b", token: b.token });
    granted(await stub(key).acquire({ key, holder: "run-c", ttlMs: TTL_MS }));
    await expectNothingFor(`${key}-none`);
    expect((await sink()).filter((n) => n.body.subject?.lock === key)).toHaveLength(1);
  });

  it("an expiry during an admin's hold, then a grant after the hold is lifted: told once", async () => {
    const key = freshScopeKey("alarm-hold");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = waitFor(key, "run-b");
    await untilQueued(key, 1);
    granted(await stub(key).hold({ key, reason: "maintenance", by: "alice-admin", ttlMs: HOUR_MS }));
    await expireLeaseJustNow(key);
    await runDurableObjectAlarm(rawStub(key));
    await endLockDelay(key);
    await runDurableObjectAlarm(rawStub(key));
    expect((await stub(key).read({ key })).held).toBe(false);
    granted(await stub(key).unhold({ key, actor: "alice-admin" }));
    const b = granted(await waiting);
    expect(b).toMatchObject({ holder: "run-b", token: a.token + 1 });
    await expectToldOnce(key, a, b);
  });

  it("control: a release in time handed to a waiter through the alarm tells nothing", async () => {
    const key = freshScopeKey("alarm-released");
    const a = granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = waitFor(key, "run-b");
    await untilQueued(key, 1);
    await stub(key).release({ key, holder: "run-a", token: a.token });
    await endLockDelay(key);
    await runDurableObjectAlarm(rawStub(key));
    granted(await waiting);
    await expectNothingFor(key);
  });

  it("control: a force-release handed to a waiter tells nothing", async () => {
    const key = freshScopeKey("alarm-forced");
    granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const waiting = waitFor(key, "run-b");
    await untilQueued(key, 1);
    await stub(key).forceRelease({ key, reason: "stuck", actor: "alice-admin" });
    await endLockDelay(key);
    await runDurableObjectAlarm(rawStub(key));
    granted(await waiting);
    await expectNothingFor(key);
  });
});
