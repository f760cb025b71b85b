/**
 * A Clock (shared/clock.ts) that only moves when a test says so. advance(ms) fires every timer that
 * falls due on the way, in due order, with now() reading each timer's own due time while it runs.
 */
import type { Clock } from "../../shared/clock";

interface Timer {
  at: number;
  fn: () => void;
}

export class ManualClock implements Clock {
  #now: number;
  #nextId = 1;
  readonly #timers = new Map<number, Timer>();
  #onTimer: Array<() => void> = [];

  constructor(start: number = Date.now()) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#nextId++;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), fn });
    for (const wake of this.#onTimer.splice(0)) wake();
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimeout(resolve, ms));
  }

  /** Due times of the timers still pending, soonest first. */
  get pending(): number[] {
    return [...this.#timers.values()].map((t) => t.at).sort((a, b) => a - b);
  }

  /** Moves time forward by `ms`, firing due timers in order; returns how many fired. */
  advance(ms: number): number {
    const until = this.#now + ms;
    let fired = 0;
    for (;;) {
      const due = [...this.#timers.entries()]
        .filter(([, t]) => t.at <= until)
        .sort(([a, x], [b, y]) => x.at - y.at || a - b)[0];
      if (!due) break;
      const [id, timer] = due;
      this.#timers.delete(id);
      this.#now = timer.at;
      timer.fn();
      fired += 1;
    }
    this.#now = until;
    return fired;
  }

  /** Moves to the soonest pending timer and fires it (and any due at the same instant). */
  advanceToNext(): number {
    const next = this.pending[0];
    if (next === undefined) throw new Error("no timer is pending");
    return this.advance(next - this.#now);
  }

  /**
   * Resolves once a timer is pending (at once if one already is): lets a test wait for the code
   * under test to finish its async work and schedule its next step, without real time passing.
   */
  untilTimer(): Promise<void> {
    if (this.#timers.size > 0) return Promise.resolve();
    return new Promise((resolve) => this.#onTimer.push(resolve));
  }
}
