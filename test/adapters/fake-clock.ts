import type { Clock } from "../../shared/clock";

/** A clock whose sleeps return at once and move time forward; `sleeps` records every wait asked for. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  #now: number;

  constructor(startMs = Date.now()) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  advance(ms: number): void {
    this.#now += ms;
  }

  setTimeout(): unknown {
    throw new Error("FakeClock.setTimeout is not used by adapters");
  }

  clearTimeout(): void {}

  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.#now += ms;
  }
}
