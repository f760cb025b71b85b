/**
 * The callers waiting for a lock, in order (docs/design.md, "Lease protocol"). They live in memory:
 * the object is not evicted while their requests are open, and a restart fails their calls, which
 * re-join (workers/locks/lease.ts). First come, first granted.
 */
import type { Result } from "../shared/errors";
import { DEFAULT_WAIT_TIMEOUT_MS } from "../shared/lease-defaults";
import type { AcquireRequest, WaitingAnswer } from "../shared/rpc/lease-lock";
import type { HoldView } from "../shared/schemas/hold";
import type { LeaseGrant, WaiterView } from "../shared/schemas/lock";
import { type RunOrigin, runHolderFor } from "../shared/schemas/provenance";
import { type CombineSlot, isTaken } from "./combine-queue";
import { claimWindowOf, type LeaseRow, leaseHolderOf, lockDelayOf } from "./lease-rules";

export interface Waiter {
  holder: string;
  ttlMs: number;
  claimWindowMs: number;
  /** The lock-delay its lease asks for (lease-rules.ts lockDelayOf). */
  lockDelayMs: number;
  since: number;
  /** The waiting run, as it described itself (shown in lock answers; null: it did not). */
  origin: RunOrigin | null;
  /** Every open call of this holder: the same holder asking again re-attaches to its place. */
  resolvers: Array<(result: Result<LeaseGrant>) => void>;
  giveUpAt: number;
  /**
   * Its wait timeout passed while a live holder had its changes taken: it stays for the report or
   * the end of that lease, and is refused then (unless granted first).
   */
  overdue?: boolean;
  timer: ReturnType<typeof setTimeout>;
  /** Write combining: the changes this waiter brought (acquireOrCombine), and what became of them. */
  combine?: CombineSlot;
}

export class WaiterQueue {
  readonly #waiters: Waiter[] = [];
  /** Called when a waiter's wait timeout fires (the object decides what it is told). */
  readonly #onTimeout: (waiter: Waiter) => void;

  constructor(onTimeout: (waiter: Waiter) => void) {
    this.#onTimeout = onTimeout;
  }

  get length(): number {
    return this.#waiters.length;
  }

  /** In queue order. */
  all(): readonly Waiter[] {
    return this.#waiters;
  }

  find(holder: string): Waiter | undefined {
    return this.#waiters.find((w) => w.holder === holder);
  }

  /** The first waiter, out of the queue, its timeout cleared: the one a free lock goes to. */
  next(): Waiter | undefined {
    const next = this.#waiters.shift();
    if (next) clearTimeout(next.timer);
    return next;
  }

  /** Takes `waiter` out of the queue; false if it had left already (granted, or answered). */
  remove(waiter: Waiter): boolean {
    const at = this.#waiters.indexOf(waiter);
    if (at < 0) return false;
    this.#waiters.splice(at, 1);
    return true;
  }

  /** A new waiter at the back; the promise settles when it is granted or gives up. */
  enqueue(req: AcquireRequest, now: number): Promise<Result<LeaseGrant>> {
    const timeoutMs = Math.max(0, req.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS);
    return new Promise<Result<LeaseGrant>>((resolve) => {
      const waiter: Waiter = {
        holder: req.holder,
        ttlMs: req.ttlMs,
        claimWindowMs: claimWindowOf(req.claimWindowMs),
        lockDelayMs: lockDelayOf(req.lockDelayMs),
        since: now,
        origin: req.origin ?? null,
        resolvers: [resolve],
        giveUpAt: now + timeoutMs,
        timer: setTimeout(() => this.#onTimeout(waiter), timeoutMs),
      };
      this.#waiters.push(waiter);
    });
  }

  /**
   * The same holder waiting again (its first call's answer was lost, or its client retried): it
   * keeps its place, takes the newer TTL and claim window, and waits until the later of the two
   * timeouts; every open call of it gets the same answer.
   */
  reattach(waiter: Waiter, req: AcquireRequest, now: number): Promise<Result<LeaseGrant>> {
    waiter.ttlMs = req.ttlMs;
    if (req.origin) waiter.origin = req.origin;
    waiter.claimWindowMs = claimWindowOf(req.claimWindowMs);
    waiter.lockDelayMs = lockDelayOf(req.lockDelayMs);
    const giveUpAt = now + Math.max(0, req.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS);
    if (giveUpAt > waiter.giveUpAt) {
      clearTimeout(waiter.timer);
      waiter.giveUpAt = giveUpAt;
      waiter.timer = setTimeout(() => this.#onTimeout(waiter), giveUpAt - now);
    }
    return new Promise<Result<LeaseGrant>>((resolve) => waiter.resolvers.push(resolve));
  }
}

/**
 * A waiter as the lock's state shows it: its place (1-based), who it is, and with combining how many
 * changes it brought and whether they are taken. Isolation is the Worker's (repository-view.ts).
 */
export function waiterView(w: Waiter, position: number, liveToken: number | null): WaiterView {
  const view: WaiterView = {
    holder: w.holder,
    since: w.since,
    position,
    by: runHolderFor(w.holder, w.origin, null),
  };
  if (!w.combine) return view;
  return { ...view, changes: w.combine.changes.length, taken: isTaken(w.combine, liveToken) };
}

/**
 * A waiter's place and what it waits for (`waiting`): the hold in force if any, else the live
 * holder as the waiter may see it (`viewer`). Pure: a report may only ever say what is.
 */
export function waitingOf(
  queue: readonly Waiter[],
  holder: string,
  at: { lease: LeaseRow | null; viewer: number | null; hold: HoldView | undefined },
): WaitingAnswer {
  const { lease, viewer, hold } = at;
  const place = queue.findIndex((w) => w.holder === holder);
  const combine = queue[place]?.combine;
  return {
    position: place < 0 ? null : place + 1,
    holder: hold
      ? { hold: { reason: hold.reason, by: hold.by, until: hold.until } }
      : lease === null
        ? null
        : leaseHolderOf(lease, viewer),
    // The same test as the waiter's timeout (lease-transitions.ts): taken by the live lease.
    taken: combine !== undefined && isTaken(combine, lease?.token ?? null),
  };
}
