/**
 * Drives randomized concurrent histories against one real lock object: several actors acquire
 * (with and without waiting, long and very short TTLs), renew, re-acquire, release, walk away
 * holding, force-release, expire the live lease by rewriting its row, and run the alarm, while an
 * observer snapshots the waiter queue. Some waiters bring a change (write combining) and holders
 * take the queue and report it written, or hand a change back. Every call is recorded with logical invocation and response
 * instants for test/helpers/lock-history.ts.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { LOCK_DELAY_MS } from "../../shared/lease-defaults";
import type { QueuedChange } from "../../shared/schemas/combine";
import type { LockEvent, Recorded } from "../helpers/lock-history";
import { rawStub, stub } from "../helpers/locks";

/** mulberry32: a tiny seeded PRNG, so the mix of operations can be replayed from the seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LONG_TTL_MS = 60_000;
const SHORT_TTL_MS = 30;
/**
 * Leases this short expire in real time while the history runs: they ask for no lock-delay, so the
 * lock keeps changing hands (the lock-delay has its own tests, lease-lock-delay.test.ts).
 */
const lockDelayFor = (ttlMs: number) => (ttlMs === SHORT_TTL_MS ? { lockDelayMs: 0 } : {});
const WAIT_TIMEOUTS_MS = [3, 25, 400];

export interface HistoryOptions {
  key: string;
  seed: number;
  actors: number;
  stepsPerActor: number;
}

export async function runHistory(opts: HistoryOptions): Promise<Recorded[]> {
  const { key } = opts;
  const history: Recorded[] = [];
  let clock = 0;
  const record = async (op: () => Promise<LockEvent>) => {
    const inv = ++clock;
    const event = await op();
    history.push({ ...event, inv, res: ++clock } as Recorded);
    return event;
  };
  let running = opts.actors;

  const actor = async (id: number) => {
    const random = prng(opts.seed * 101 + id);
    const lock = stub(key);
    let held: { holder: string; token: number } | null = null;
    for (let step = 0; step < opts.stepsPerActor; step++) {
      const r = random();
      if (held) {
        const { holder, token }: { holder: string; token: number } = held;
        if (r < 0.28) {
          const ev = await record(async () => {
            const res = await lock.renew({ key, holder, token });
            return res.ok
              ? { type: "renew", holder, token, expiresAt: res.value.expiresAt }
              : { type: "renew-lost", holder, token };
          });
          if (ev.type !== "renew") held = null;
        } else if (r < 0.45) {
          const giveBack = random() < 0.3;
          const ev = await record(() => combineQueue(key, holder, token, giveBack));
          if (ev.type === "combine" && !ev.ok) held = null;
        } else if (r < 0.85) {
          await record(async () => {
            const res = await lock.release({ key, holder, token });
            const released = res.ok && res.value.released;
            return { type: "release", holder, token, released, at: res.ok ? res.value.at : 0 };
          });
          held = null;
        } else if (r < 0.93) {
          // Idempotent re-acquire by the holder: the same token, or a fresh grant if it was lost.
          const ev = await record(async () => {
            const res = await lock.acquire({ key, holder, ttlMs: LONG_TTL_MS });
            if (!res.ok) return { type: "refused", holder, waited: false, code: res.error.code };
            const { token: got, acquiredAt: at, expiresAt } = res.value;
            return got === token
              ? { type: "reacquire", holder, token, expiresAt }
              : { type: "grant", holder, token: got, at, expiresAt, waited: false };
          });
          held = ev.type === "refused" ? null : { holder, token: (ev as { token: number }).token };
        } else {
          held = null; // walks away holding: the lease must expire or be force-released
        }
        continue;
      }
      if (r < 0.7) {
        const holder = `a${id}-${step}`;
        const wait = random() < 0.6;
        const ttlMs = random() < 0.15 ? SHORT_TTL_MS : LONG_TTL_MS;
        const waitTimeoutMs = WAIT_TIMEOUTS_MS[Math.floor(random() * WAIT_TIMEOUTS_MS.length)] as number;
        if (wait && random() < 0.6) {
          const ev = await record(async () => {
            const res = await lock.acquireOrCombine({
              key,
              holder,
              ttlMs,
              ...lockDelayFor(ttlMs),
              wait,
              waitTimeoutMs,
              changes: [changeOf(holder)],
            });
            if (!res.ok) return { type: "refused", holder, waited: wait, code: res.error.code };
            const { grant, combined } = res.value;
            if (grant)
              return {
                type: "grant",
                holder,
                token: grant.token,
                at: grant.acquiredAt,
                expiresAt: grant.expiresAt,
                waited: wait,
              };
            return { type: "combined", holder, by: combined?.by ?? "", token: combined?.token ?? 0 };
          });
          if (ev.type === "grant") held = { holder, token: ev.token };
          continue;
        }
        const ev = await record(async () => {
          const res = await lock.acquire({ key, holder, ttlMs, ...lockDelayFor(ttlMs), wait, waitTimeoutMs });
          return res.ok
            ? {
                type: "grant",
                holder,
                token: res.value.token,
                at: res.value.acquiredAt,
                expiresAt: res.value.expiresAt,
                waited: wait,
              }
            : { type: "refused", holder, waited: wait, code: res.error.code };
        });
        if (ev.type === "grant") held = { holder, token: ev.token };
      } else if (r < 0.78) {
        await record(() => forceRelease(key, `admin-${id}`));
      } else if (r < 0.88) {
        await record(() => expireLive(key));
      } else if (r < 0.93) {
        await runDurableObjectAlarm(rawStub(key));
      } else {
        await record(() => snapshot(key));
      }
    }
    if (held) {
      const { holder, token } = held;
      await record(async () => {
        const res = await lock.release({ key, holder, token });
        return {
          type: "release",
          holder,
          token,
          released: res.ok && res.value.released,
          at: res.ok ? res.value.at : 0,
        };
      });
    }
    running -= 1;
  };

  const observer = async () => {
    while (running > 0) await record(() => snapshot(key));
  };

  await Promise.all([...Array.from({ length: opts.actors }, (_, i) => actor(i)), observer()]);
  return history;
}

function changeOf(holder: string): QueuedChange {
  const url = `https://${holder}.example.com/cb`;
  return {
    id: `0\n${url}`,
    action: "create",
    op: "auth0.callbacks",
    key: url,
    params: { url },
    connection: "auth0-history.us.auth0.com",
    owner: `186853002/preview/${holder}`,
    environment: "preview",
    runId: holder,
  };
}

/**
 * The holder takes the queue and reports every change written (or, with `giveBack`, hands each
 * back). Other actors run between the two calls, as they would during the provider write.
 */
async function combineQueue(
  key: string,
  holder: string,
  token: number,
  giveBack: boolean,
): Promise<LockEvent> {
  const taken = await stub(key).takeQueued({ key, holder, token });
  if (!taken.ok) return { type: "combine", holder, token, ok: false, reported: [] };
  const reports = taken.value.waiters.map(({ waiter, changes }) =>
    giveBack
      ? {
          waiter,
          applied: [],
          returned: changes.map((c) => ({
            id: c.id,
            error: { code: "PROVIDER_ERROR" as const, message: "refused" },
          })),
        }
      : { waiter, applied: changes.map((c) => ({ id: c.id, outcome: "written" as const })), returned: [] },
  );
  const ownerChanges = giveBack
    ? []
    : taken.value.waiters.flatMap(({ changes }) =>
        changes.map((c) => ({ action: "add" as const, op: c.op, key: c.key, owner: c.owner })),
      );
  const res = await stub(key).reportCombined({ key, holder, token, reports, ownerChanges });
  const reported = giveBack ? [] : reports.map((r) => r.waiter);
  return { type: "combine", holder, token, ok: res.ok, reported: res.ok ? reported : [] };
}

async function snapshot(key: string): Promise<LockEvent> {
  const state = await stub(key).read({ key });
  return { type: "snapshot", waiters: state.waiters };
}

/** Force-release with the token it ended read in the same synchronous turn (no interleaving). */
function forceRelease(key: string, actor: string): Promise<LockEvent> {
  return runInDurableObject(rawStub(key), async (instance: LeaseLock, state) => {
    const row = state.storage.sql
      .exec<{ token: number }>("SELECT token FROM lease WHERE id = 1")
      .toArray()[0];
    const result = await instance.forceRelease({ key, reason: "history test", actor });
    return {
      type: "force",
      token: row && result.ok && result.value.released ? row.token : null,
      at: result.ok ? result.value.at : 0,
    };
  });
}

/** Moves the live lease's expiry into the past, as if its TTL had run out. */
function expireLive(key: string): Promise<LockEvent> {
  return runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    const at = Date.now();
    const row = state.storage.sql
      .exec<{ token: number }>("SELECT token FROM lease WHERE id = 1")
      .toArray()[0];
    // Long enough ago that its lock-delay has passed too.
    if (row) state.storage.sql.exec("UPDATE lease SET expires_at = ? WHERE id = 1", at - 1 - LOCK_DELAY_MS);
    return { type: "expire", token: row ? row.token : null, at };
  });
}
