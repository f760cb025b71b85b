/**
 * The one test Clock (shared/clock.ts): time moves only when the test or the code under test says
 * so, never with the wall clock, so no test waits out a real backoff, deadline or renewal.
 *
 * - advance(ms) fires every timer that falls due on the way, in due order, with now() reading each
 *   timer's own due time while it runs.
 * - jump(ms) moves time without firing anything: an isolate that stalled past its deadline.
 * - sleep(ms) depends on how the clock was made: ManualClock's sleeps are timers like any other
 *   (they end when the test advances past them); StepClock's pass at once, move time forward and
 *   are recorded in `sleeps` (a retry backoff that costs nothing; its timers still wait for advance).
 * Plain Node as well as workerd: the vendor-SDK suite uses it too.
 */
import type { Clock } from "../../shared/clock";

interface Timer {
  at: number;
  fn: () => void;
}

class TestClock implements Clock {
  /** Every sleep asked for, in order (a StepClock's waits, which pass at once). */
  readonly sleeps: number[] = [];
  #now: number;
  #nextId = 1;
  readonly #timers = new Map<number, Timer>();
  #onTimer: Array<() => void> = [];
  readonly #instantSleeps: boolean;

  constructor(start: number, instantSleeps: boolean) {
    this.#now = start;
    this.#instantSleeps = instantSleeps;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms = 0): unknown {
    const id = this.#nextId++;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), fn });
    for (const wake of this.#onTimer.splice(0)) wake();
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  async sleep(ms: number): Promise<void> {
    if (!this.#instantSleeps) return new Promise((resolve) => this.setTimeout(resolve, ms));
    this.sleeps.push(ms);
    this.#now += ms;
  }

  /** Moves time without firing any timer. */
  jump(ms: number): void {
    this.#now += ms;
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

/** Sleeps are timers: they end when the test advances past them. */
export class ManualClock extends TestClock {
  constructor(start: number = Date.now()) {
    super(start, false);
  }
}

/** Sleeps pass at once, move time forward and are recorded; timers still wait for advance(). */
export class StepClock extends TestClock {
  constructor(start: number = Date.now()) {
    super(start, true);
  }
}
