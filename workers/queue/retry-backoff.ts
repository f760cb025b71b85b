/** Retry delay of a failed destroy: exponential in the delivery attempt, capped. Pure. */
export const RETRY_BASE_SECONDS = 30;
export const RETRY_MAX_SECONDS = 900;

/** `attempts` is the queue's count for this delivery: 1 on the first. */
export function retryDelaySeconds(attempts: number): number {
  const exponent = Math.max(0, Math.min(attempts - 1, 16));
  return Math.min(RETRY_BASE_SECONDS * 2 ** exponent, RETRY_MAX_SECONDS);
}
