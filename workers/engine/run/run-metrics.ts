/**
 * One run's metrics: how long it waited on each kind of call and how many it made. The engine
 * measures at its edges (the provider transport, the lock targets, the receipt store and the scope
 * state: workers/engine/run/metered-deps.ts), never inside the writers.
 *
 * Time is wall time from `performance.now()`, which in Workers advances only across I/O: CPU work
 * reads as 0 and waiting is what shows, which is what these numbers are for.
 */
import type { CountKind, RunCounts, RunTimings, TimingKind } from "../../../shared/schemas/run-metrics";
import { TIMING_KINDS } from "../../../shared/schemas/run-metrics";

export type { CountKind, TimingKind };

/** One lease acquisition as the run waited for it (docs/operations.md, "Metrics"). */
export interface LockWait {
  key: string;
  kind: "scopeLockWait" | "parentLockWait";
  ms: number;
}

const round = (ms: number) => Math.round(Math.max(0, ms) * 10) / 10;

interface Busy {
  /** Calls of this kind in flight now. */
  open: number;
  /** When the current busy stretch began (valid while open > 0). */
  since: number;
  /** Closed busy stretches, summed. */
  ms: number;
}

export class RunMetrics {
  readonly startedAt: number;
  readonly #now: () => number;
  readonly #busy = new Map<TimingKind, Busy>(
    TIMING_KINDS.map((kind) => [kind, { open: 0, since: 0, ms: 0 }]),
  );
  readonly #counts: Required<RunCounts> = {
    providerCalls: 0,
    lockOps: 0,
    storageReads: 0,
    storageWrites: 0,
    locks: 0,
  };
  /** The locks a lease was asked of (`locks` counts them once each). */
  readonly #locks = new Set<string>();
  readonly #lockWaits: LockWait[] = [];

  /** `startedAt`: when the request arrived, for runs started over HTTP (authorization came first). */
  constructor(startedAt?: number, now: () => number = () => performance.now()) {
    this.#now = now;
    this.startedAt = startedAt ?? now();
  }

  count(kind: CountKind, n = 1): void {
    this.#counts[kind] += n;
  }

  /** A lease was asked of the lock `key`. */
  leaseAsked(key: string): void {
    this.#locks.add(key);
    this.#counts.locks = this.#locks.size;
  }

  /** Adds time measured elsewhere (the request's authentication, before the run existed). */
  add(kind: TimingKind, ms: number): void {
    this.#part(kind).ms += Math.max(0, ms);
  }

  /**
   * Measures `fn` as time spent on `kind`. Overlapping calls of one kind count once (their busy
   * stretch), so no part ever exceeds the run's total.
   */
  async time<T>(kind: TimingKind, fn: () => Promise<T>): Promise<T> {
    const busy = this.#part(kind);
    if (busy.open++ === 0) busy.since = this.#now();
    try {
      return await fn();
    } finally {
      if (--busy.open === 0) busy.ms += this.#now() - busy.since;
    }
  }

  /** `time`, and the wait of this one acquisition remembered with its lock key. */
  async timeLockWait<T>(key: string, kind: LockWait["kind"], fn: () => Promise<T>): Promise<T> {
    const start = this.#now();
    try {
      return await this.time(kind, fn);
    } finally {
      this.#lockWaits.push({ key, kind, ms: round(this.#now() - start) });
    }
  }

  lockWaits(): LockWait[] {
    return [...this.#lockWaits];
  }

  timeSync<T>(kind: TimingKind, fn: () => T): T {
    const start = this.#now();
    try {
      return fn();
    } finally {
      this.add(kind, this.#now() - start);
    }
  }

  timings(): RunTimings {
    const now = this.#now();
    const part = (kind: TimingKind) => {
      const busy = this.#part(kind);
      return round(busy.ms + (busy.open > 0 ? now - busy.since : 0));
    };
    return {
      authorization: part("authorization"),
      scopeLockWait: part("scopeLockWait"),
      parentLockWait: part("parentLockWait"),
      provider: part("provider"),
      storage: part("storage"),
      budgetWait: part("budgetWait"),
      total: round(now - this.startedAt),
    };
  }

  counts(): Required<RunCounts> {
    return { ...this.#counts };
  }

  #part(kind: TimingKind): Busy {
    return this.#busy.get(kind) as Busy;
  }
}

/** The request's own metrics when it brought some (HTTP), else fresh ones started now. */
export function metricsFor(req: { metrics?: RunMetrics | undefined }): RunMetrics {
  return req.metrics ?? new RunMetrics();
}
