/**
 * Inside the runtime (Worker → lock object over RPC): what a run pays for a lease, how fast the
 * object hands a released lock to its next waiter, and how much SQLite a lock object keeps.
 * Workers' clocks only advance across I/O, so per-operation figures are batch means: each sample
 * is the mean of BATCH sequential operations, and the table shows the median and p99 of samples.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { it } from "vitest";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { lockStub } from "../../workers/locks/lock-target";
import { now, report, summary } from "./stats";

const SAMPLES = Number((env as unknown as Record<string, string | undefined>).BENCH_SAMPLES ?? 40);
const BATCH = 25;
const RELAY = 25;
const TTL_MS = 30_000;

const raw = (key: string) => env.LEASE_LOCK.get(env.LEASE_LOCK.idFromName(key));

it("lease round trip (acquire + release, uncontended) inside the runtime", async () => {
  const key = `scope:bench/branch-rt-${crypto.randomUUID().slice(0, 8)}`;
  const lock = lockStub(env, key);
  const samples: number[] = [];
  for (let s = 0; s < SAMPLES + 3; s++) {
    const start = now();
    for (let i = 0; i < BATCH; i++) {
      const holder = `run-${s}-${i}`;
      const grant = await lock.acquire({ key, holder, ttlMs: TTL_MS });
      if (!grant.ok) throw new Error(grant.error.message);
      await lock.release({ key, holder, token: grant.value.token });
    }
    if (s >= 3) samples.push((now() - start) / BATCH); // the first batches warm the object up
  }
  report("runtime.leaseRoundTrip", summary(samples));
});

it("handoff: release → next waiter holds the lock (FIFO inside the object)", async () => {
  const samples: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    const key = `scope:bench/branch-handoff-${s}-${crypto.randomUUID().slice(0, 8)}`;
    const lock = lockStub(env, key);
    const first = await lock.acquire({ key, holder: "holder", ttlMs: TTL_MS });
    if (!first.ok) throw new Error(first.error.message);
    // A relay: each waiter releases as soon as it is granted, so the chain is RELAY handoffs.
    const waiters = Array.from({ length: RELAY }, (_, i) =>
      lock
        .acquire({ key, holder: `w${i}`, ttlMs: TTL_MS, wait: true, waitTimeoutMs: 60_000 })
        .then(async (r) => {
          if (!r.ok) throw new Error(r.error.message);
          const at = now();
          await lock.release({ key, holder: `w${i}`, token: r.value.token });
          return at;
        }),
    );
    while ((await lock.read({ key })).waiters.length < RELAY) await scheduler.wait(1);
    const start = now();
    await lock.release({ key, holder: "holder", token: first.value.token });
    const grantedAt = await Promise.all(waiters);
    samples.push((Math.max(...grantedAt) - start) / RELAY);
  }
  report("runtime.handoff", summary(samples));
});

it("storage per lock object (SQLite databaseSize)", async () => {
  const fresh = `scope:bench/branch-size-a-${crypto.randomUUID().slice(0, 8)}`;
  const busy = `scope:bench/branch-size-b-${crypto.randomUUID().slice(0, 8)}`;
  for (const [key, cycles] of [
    [fresh, 1],
    [busy, 200],
  ] as const) {
    const lock = lockStub(env, key);
    for (let i = 0; i < cycles; i++) {
      const g = await lock.acquire({ key, holder: `h${i}`, ttlMs: TTL_MS });
      if (g.ok) await lock.release({ key, holder: `h${i}`, token: g.value.token });
    }
  }
  const size = (key: string) =>
    runInDurableObject(raw(key), async (_i: LeaseLock, state) => state.storage.sql.databaseSize);
  report("runtime.storagePerLock", { afterOneCycle: await size(fresh), after200Cycles: await size(busy) });
});
