/**
 * Time for many runs at once that moves only while none of them is in the middle of something
 * time must not pass during: a ManualClock driven to the next sleep's end (a wait for budget, a
 * retry's backoff) whenever no provider request and no budget-object call is in flight. Runs that
 * wait on provider budgets then take exactly the virtual time the budgets allow, and a provider
 * emulator reading each request's time from EMULATOR_NOW_HEADER sees the same clock, so whether a
 * call passes its budget never depends on how fast the machine is.
 *
 * What it does not hold still: lock-object, R2 and scope-state calls. Time moving during one only
 * makes a run's next budget call later than it could have been, never earlier.
 */
import { env } from "cloudflare:workers";
import { EMULATOR_NOW_HEADER } from "../../dev/emulators/knobs";
import type { Clock } from "../../shared/clock";
import type { BudgetBucketApi } from "../../shared/rpc/budget-bucket";
import { ManualClock } from "./clock";

export class VirtualTime {
  readonly manual = new ManualClock(1_800_000_000_000);
  #busy = 0;
  #nextSleep = 1;
  readonly #sleeping = new Map<number, number>();

  /** The engine's clock: a sleep is a timer like any other, and the driver knows when it ends. */
  readonly clock: Clock = {
    now: () => this.manual.now(),
    setTimeout: (fn, ms) => this.manual.setTimeout(fn, ms),
    clearTimeout: (handle) => this.manual.clearTimeout(handle),
    sleep: (ms) => {
      const id = this.#nextSleep++;
      this.#sleeping.set(id, this.manual.now() + Math.max(0, ms));
      return this.manual.sleep(ms).finally(() => this.#sleeping.delete(id));
    },
  };

  /** The provider transport, each request stamped with the clock and held in flight. */
  wrapFetch = (inner: typeof fetch): typeof fetch => {
    return (input, init) => {
      const request = new Request(input, init);
      request.headers.set(EMULATOR_NOW_HEADER, String(this.manual.now()));
      return this.#during(() => inner(request));
    };
  };

  /** The Worker's bindings with every budget-object call held in flight. */
  bindings(): typeof env {
    const namespace = env.BUDGET_BUCKET;
    if (!namespace) throw new Error("BUDGET_BUCKET is not bound");
    const during = <T>(call: () => Promise<T>) => this.#during(call);
    const counted = {
      idFromName: (name: string) => namespace.idFromName(name),
      get: (id: DurableObjectId): BudgetBucketApi => {
        const stub = namespace.get(id) as unknown as BudgetBucketApi;
        return {
          take: (request) => during(() => stub.take(request)),
          drain: (request) => during(() => stub.drain(request)),
          status: (rate, nowMs) => during(() => stub.status(rate, nowMs)),
        };
      },
    };
    return { ...env, BUDGET_BUCKET: counted as unknown as typeof namespace };
  }

  /**
   * Moves time until `work` settles: after every change it lets the runs go on as far as they can
   * (macrotask turns, so every continuation a resolved call queued has run), and once nothing is
   * in flight and someone sleeps, moves to the earliest sleep's end.
   */
  async drive<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const settled = work.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    while (!done) {
      await Promise.race([settled, turns(3)]);
      if (done || this.#busy > 0 || this.#sleeping.size === 0) continue;
      const next = Math.min(...this.#sleeping.values());
      this.manual.advance(Math.max(0, next - this.manual.now()));
    }
    return work;
  }

  async #during<T>(call: () => Promise<T>): Promise<T> {
    this.#busy += 1;
    try {
      return await call();
    } finally {
      this.#busy -= 1;
    }
  }
}

/** `n` macrotask turns: every microtask queued before them has run. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}
