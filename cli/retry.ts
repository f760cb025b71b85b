/**
 * Retries of what the service marks `retriable` (docs/api.md, "Problem codes and `retriable`"): the
 * same request, unchanged, sent again after a pause, until the budget — the run's wait timeout —
 * is spent. Pauses grow exponentially with full jitter ("Exponential Backoff And Jitter", AWS
 * Architecture Blog, 2015), so many jobs refused at once do not come back at once, and never end
 * before a `Retry-After` the service sent.
 *
 * LOCK_HELD is not retried here: the service already waited for the lock as long as the request
 * asked (`--wait`, `--wait-timeout`), and without `--wait` the caller asked not to. Pure: the
 * clock, the pause and the dice are passed in.
 */
import type { ApiError } from "./client";

export const RETRY_BASE_MS = 1_000;
export const RETRY_CAP_MS = 30_000;
/** The budget when the command names no wait timeout. */
export const DEFAULT_RETRY_SECONDS = 60;

export interface RetryClock {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** In [0, 1). */
  random: () => number;
}

export const REAL_CLOCK: RetryClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

export function shouldRetry(err: ApiError): boolean {
  return err.retriable && err.code !== "LOCK_HELD";
}

/** The pause before retry number `attempt` (1 = the first retry): full jitter under a growing cap. */
export function backoffMs(attempt: number, random: () => number, retryAfterMs = 0): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (attempt - 1));
  return Math.max(retryAfterMs, Math.floor(random() * ceiling));
}

export interface RetryOptions {
  budgetMs: number;
  clock?: RetryClock;
  /** Told before each pause, e.g. to print "retrying in 2.1 s". */
  onRetry?: (err: ApiError, delayMs: number, attempt: number) => void;
  isApiError: (err: unknown) => err is ApiError;
}

export async function withRetries<T>(send: () => Promise<T>, options: RetryOptions): Promise<T> {
  const clock = options.clock ?? REAL_CLOCK;
  const deadline = clock.now() + options.budgetMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (!options.isApiError(err) || !shouldRetry(err)) throw err;
      const delay = backoffMs(attempt, clock.random, err.retryAfterMs);
      if (clock.now() + delay > deadline) throw err;
      options.onRetry?.(err, delay, attempt);
      await clock.sleep(delay);
    }
  }
}
