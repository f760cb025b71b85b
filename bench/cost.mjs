// What a million runs cost on Cloudflare's published prices (Workers Paid, beyond the included
// allowances), computed from a run's own counts (docs/api.md, "Where a run's time went":
// providerCalls, lockOps, storageReads, storageWrites) and the CPU the bench measured. Sources and
// the date they were read: docs/performance.md, "Cost per million runs".

/** USD per unit, beyond what the plan includes. */
export const PRICES = {
  read: "2026-12-01",
  workersRequest: 0.3 / 1e6, // developers.cloudflare.com/workflows/reference/pricing/ (= Workers Standard)
  workersCpuMs: 0.02 / 1e6, // same page: $0.02 per additional million CPU milliseconds
  doRequest: 0.15 / 1e6, // developers.cloudflare.com/durable-objects/platform/pricing: every RPC call is one
  doGbSecond: 12.5 / 1e6, // same page: $12.50 per million GB-s of duration
  r2ClassA: 4.5 / 1e6, // developers.cloudflare.com/r2/pricing/ (Standard storage)
  r2ClassB: 0.36 / 1e6, // same page
  queueOperation: 0.4 / 1e6, // developers.cloudflare.com/queues/platform/pricing/ (per 64 KB written, read or deleted)
};

/** Durable Object duration is billed at 128 MB per active object. */
const DO_GB = 128 / 1024;
/** Per lease on a lock that had gone idle (costPerMillion). */
const ALARMS_PER_LEASE = 1;
const FEED_NOTICES_PER_LEASE = 2;
const INDEX_PUTS_PER_IDLE_LEASE = 1;
/** The engine reads the scope state twice per run (before and under the scope lease, docs/design.md). */
export const SCOPE_STATE_READS = 2;

/**
 * One run's bill, per million runs. `counts`: the run's own; `cpuMs`: CPU per run; `lockWaitMs`: time
 * its acquires waited in a lock object (an open request keeps the object billed); `perCallMs`: how
 * long one object call keeps an object active (the in-runtime lease round trip halved).
 */
export function costPerMillion({ counts, cpuMs, lockWaitMs = 0, perCallMs }) {
  const doCalls = counts.lockOps + SCOPE_STATE_READS;
  // What each lock object does per lease on its own, which no run count sees (durable-objects/
  // lease-lock.ts, held-index.ts, feed-notices.ts): an alarm at the lease's expiry and lock-feed
  // notices (held, then free: each a call to the feed object); and a held-lock index put for every
  // lease on a lock that had gone idle (a lease is listed from its grant, docs/storage.md). Upper
  // bounds: a lock taken again while its entry stands costs no put, and before its alarm no alarm.
  const locks = counts.locks ?? 0;
  const activeSeconds = (doCalls * perCallMs + lockWaitMs) / 1000;
  const lines = [
    ["Workers requests", 1, "request", PRICES.workersRequest],
    ["Workers CPU", cpuMs, "CPU-ms", PRICES.workersCpuMs],
    ["Durable Object requests (lock objects + 2 scope-state reads)", doCalls, "request", PRICES.doRequest],
    [
      "Durable Object duration (128 MB while a call is in the object)",
      activeSeconds * DO_GB,
      "GB-s",
      PRICES.doGbSecond,
    ],
    [
      "R2 class B (receipt reads)",
      Math.max(0, counts.storageReads - SCOPE_STATE_READS),
      "operation",
      PRICES.r2ClassB,
    ],
    ["R2 class A (receipt writes)", counts.storageWrites, "operation", PRICES.r2ClassA],
    [
      "Lock objects' own requests: expiry alarm + 2 lock-feed notices per lock taken (upper bound)",
      locks * (ALARMS_PER_LEASE + FEED_NOTICES_PER_LEASE),
      "request",
      PRICES.doRequest,
    ],
    [
      "R2 class A (held-lock index: a put per lock taken on an idle lock; upper bound)",
      locks * INDEX_PUTS_PER_IDLE_LEASE,
      "operation",
      PRICES.r2ClassA,
    ],
    ["Queue operations (an apply enqueues nothing)", 0, "operation", PRICES.queueOperation],
  ].map(([what, perRun, unit, price]) => ({ what, perRun, unit, usdPerMillionRuns: perRun * price * 1e6 }));
  return { lines, totalUsdPerMillionRuns: lines.reduce((a, l) => a + l.usdPerMillionRuns, 0) };
}

/** A queued destroy (closed pull request): one message written, read and deleted. */
export const QUEUED_DESTROY_USD_PER_MILLION = 3 * PRICES.queueOperation * 1e6;
