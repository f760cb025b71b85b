/**
 * One bound for a run's whole wait (docs/design.md, "Lease protocol": the run's side; etcd's
 * `Lock(ctx)`): a deadline computed once, when the run asks for its first lock, from the request's
 * `waitTimeoutSeconds` (else WAIT_TIMEOUT_SECONDS), and carried to every acquire the run makes. A
 * waiting acquire asks the lock object to wait for what is left of it, less the margin the
 * object's refusal needs to come back in time, and races its open call against it; once it has
 * passed, an acquire waits no more: it asks once, as a try.
 */
import type { Clock } from "../../shared/clock";

/** The most the object is asked to give up before the deadline: the flight of its refusal. */
export const ANSWER_MARGIN_MS = 1_000;

export class WaitDeadline {
  /** The whole budget, as the request gave it. */
  readonly budgetMs: number;
  /** When it runs out, on `clock`. */
  readonly at: number;
  readonly clock: Clock;

  private constructor(budgetMs: number, clock: Clock) {
    this.budgetMs = budgetMs;
    this.clock = clock;
    this.at = clock.now() + budgetMs;
  }

  /** A budget of `budgetMs`, running from now. */
  static start(budgetMs: number, clock: Clock): WaitDeadline {
    return new WaitDeadline(Math.max(0, budgetMs), clock);
  }

  /** What is left of the budget now (0 once it has passed). */
  leftMs(): number {
    return Math.max(0, this.at - this.clock.now());
  }

  passed(): boolean {
    return this.leftMs() === 0;
  }

  /**
   * The wait timeout to ask the lock object for: what is left, less a tenth of it (at most
   * ANSWER_MARGIN_MS), so the object's own refusal — naming the holder, vouching for what it knows
   * of the waiter's changes — arrives before the client's race ends the wait.
   */
  objectWaitMs(): number {
    const left = this.leftMs();
    return left - Math.min(ANSWER_MARGIN_MS, Math.floor(left / 10));
  }
}

/**
 * `call`'s value, or null once `until` (a time on `clock`) comes first; a rejection before then is
 * thrown. The timer is cleared either way; a call that settles later is not waited for here (an
 * acquire's is watched by its caller, lost-answer.ts: a grant it brings is given back).
 */
export async function before<T>(call: Promise<T>, until: number, clock: Clock): Promise<{ value: T } | null> {
  if (until <= clock.now()) {
    call.catch(() => {});
    return null;
  }
  let timer: unknown = null;
  const late = new Promise<null>((resolve) => {
    timer = clock.setTimeout(() => resolve(null), until - clock.now());
  });
  try {
    return await Promise.race([call.then((value) => ({ value })), late]);
  } finally {
    clock.clearTimeout(timer);
    call.catch(() => {});
  }
}
